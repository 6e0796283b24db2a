package io.jcni.plugins.internal.meta.portmap;

import io.jcni.netlink.nft.Exprs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code conditionsV4} / {@code conditionsV6}: extra matches in front of the jump to the port mappings, in nft's
 * syntax. Go's nftables backend pastes the strings, joined by spaces, into an {@code nft} command; jcni has no
 * {@code nft} to hand text to, so it reads the matches people write there and refuses the rest by name rather than
 * guess:
 * <ul>
 *   <li>{@code ip saddr|daddr [==|!=] ADDRESS[/LENGTH]} (in {@code conditionsV4}), {@code ip6 ...} (in
 *   {@code conditionsV6});</li>
 *   <li>{@code [meta] iifname|oifname [==|!=] NAME} (a name, quoted or not, without wildcards).</li>
 * </ul>
 * Anything else nft knows (sets, ports, marks, conntrack, verdicts such as {@code jump}) is code 2 naming the key
 * and the words not understood; an iptables condition ({@code -d 10.0.0.1}, Go's iptables backend) is code 2 too, as
 * Go refuses it under nftables; a malformed address, an unterminated quote or a bad interface name is code 7. Since
 * nothing reaches a command line, no text here can add other rules (a {@code ;} is just a word that is refused).
 */
final class Conditions {
    private static final String SUPPORTED = "jcni reads \"ip|ip6 saddr|daddr [!=] ADDRESS[/LENGTH]\" and"
            + " \"iifname|oifname [!=] NAME\" there";

    /** One match: what it compares, whether negated, and the value. */
    record Match(String field, boolean negated, IpPrefix prefix, String ifName) {
        void applyTo(Exprs exprs) {
            switch (field) {
                case "saddr":
                    if (negated) {
                        exprs.notSaddr(prefix.address(), prefix.prefixLength());
                    } else {
                        exprs.saddr(prefix.address(), prefix.prefixLength());
                    }
                    break;
                case "daddr":
                    if (negated) {
                        exprs.notDaddr(prefix.address(), prefix.prefixLength());
                    } else {
                        exprs.daddr(prefix.address(), prefix.prefixLength());
                    }
                    break;
                case "iifname":
                    if (negated) {
                        exprs.notIifname(ifName);
                    } else {
                        exprs.iifname(ifName);
                    }
                    break;
                default:
                    if (negated) {
                        exprs.notOifname(ifName);
                    } else {
                        exprs.oifname(ifName);
                    }
                    break;
            }
        }
    }

    private final List<Match> matches;

    private Conditions(List<Match> matches) {
        this.matches = List.copyOf(matches);
    }

    static final Conditions NONE = new Conditions(List.of());

    List<Match> matches() {
        return matches;
    }

    /** Appends the matches to a rule being written. */
    void applyTo(Exprs exprs) {
        for (Match m : matches) {
            m.applyTo(exprs);
        }
    }

    /**
     * Whether {@code conditions} are iptables conditions: Go's test, the first character of the first string is
     * {@code -} or {@code !}.
     */
    static boolean areIptables(List<String> conditions) {
        if (conditions.isEmpty() || conditions.getFirst().isEmpty()) {
            return false;
        }
        char c = conditions.getFirst().charAt(0);
        return c == '-' || c == '!';
    }

    /**
     * Reads {@code conditions} (the strings joined by spaces, as Go joins them) for the table of {@code ipv6}'s
     * family; {@code key} names the configuration key in errors.
     */
    static Conditions parse(String key, List<String> conditions, boolean ipv6) throws CniException {
        List<String> words = words(key, String.join(" ", conditions));
        List<Match> matches = new ArrayList<>();
        int i = 0;
        while (i < words.size()) {
            String word = words.get(i);
            if (word.equals("ip") || word.equals("ip6")) {
                if (word.equals("ip6") != ipv6) {
                    throw new CniException(CniError.INVALID_NETWORK_CONFIG, key + ": \"" + word + "\" matches "
                            + (ipv6 ? "IPv4" : "IPv6") + " packets, which never reach the "
                            + (ipv6 ? "ip6" : "ip") + " table these conditions are for");
                }
                String field = at(key, words, i + 1);
                if (!field.equals("saddr") && !field.equals("daddr")) {
                    throw unsupported(key, words, i, i + 2);
                }
                int v = i + 2;
                boolean negated = false;
                if (at(key, words, v).equals("!=") || at(key, words, v).equals("==")) {
                    negated = words.get(v).equals("!=");
                    v++;
                }
                String value = at(key, words, v);
                if (value.startsWith("{") || value.startsWith("@") || value.contains("-")) {
                    throw unsupported(key, words, i, v + 1);
                }
                matches.add(new Match(field, negated, prefix(key, value, ipv6), null));
                i = v + 1;
            } else if (word.equals("iifname") || word.equals("oifname") || word.equals("meta")) {
                int f = word.equals("meta") ? i + 1 : i;
                String field = at(key, words, f);
                if (!field.equals("iifname") && !field.equals("oifname")) {
                    throw unsupported(key, words, i, f + 1);
                }
                int v = f + 1;
                boolean negated = false;
                if (at(key, words, v).equals("!=") || at(key, words, v).equals("==")) {
                    negated = words.get(v).equals("!=");
                    v++;
                }
                String value = at(key, words, v);
                if (value.startsWith("{") || value.startsWith("@")) {
                    throw unsupported(key, words, i, v + 1);
                }
                matches.add(new Match(field, negated, null, ifName(key, unquoted(value))));
                i = v + 1;
            } else {
                throw unsupported(key, words, i, i + 1);
            }
        }
        return new Conditions(matches);
    }

    private static String at(String key, List<String> words, int i) throws CniException {
        if (i >= words.size()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, key + ": \"" + String.join(" ", words)
                    + "\" ends in the middle of a match");
        }
        return words.get(i);
    }

    private static CniException unsupported(String key, List<String> words, int from, int to) {
        List<String> part = words.subList(from, Math.min(to, words.size()));
        return new CniException(CniError.UNSUPPORTED_FIELD, key + ": \"" + String.join(" ", part)
                + "\" is not supported", SUPPORTED + " (Go's portmap hands the text to nft, which jcni does not"
                + " run); remove the condition or express it with those matches");
    }

    /** An address or prefix of the table's family, host bits kept out as nft masks them. */
    private static IpPrefix prefix(String key, String text, boolean ipv6) throws CniException {
        IpPrefix prefix = text.indexOf('/') >= 0 ? IpPrefix.parse(text, key)
                : IpPrefix.host(IpText.parseAddress(text, key));
        if (prefix.isIpv4() == ipv6) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, key + ": " + text + " is not an "
                    + (ipv6 ? "IPv6" : "IPv4") + " address");
        }
        InetAddress network = prefix.network();
        return new IpPrefix(network, prefix.prefixLength());
    }

    /** An interface name as nft compares it exactly: 1-15 bytes, no wildcard, no NUL, no slash. */
    private static String ifName(String key, String name) throws CniException {
        if (name.contains("*")) {
            throw new CniException(CniError.UNSUPPORTED_FIELD, key + ": interface wildcard \"" + name
                    + "\" is not supported", SUPPORTED);
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > 15 || name.indexOf('\0') >= 0 || name.indexOf('/') >= 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, key + ": invalid interface name \"" + name
                    + "\"");
        }
        return name;
    }

    private static String unquoted(String word) {
        return word.length() >= 2 && word.startsWith("\"") && word.endsWith("\"")
                ? word.substring(1, word.length() - 1) : word;
    }

    /** Splits on whitespace; a double-quoted string (no escapes, as nft) is one word, kept with its quotes. */
    static List<String> words(String key, String text) throws CniException {
        List<String> words = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            if (c == '"') {
                int end = text.indexOf('"', i + 1);
                if (end < 0) {
                    throw new CniException(CniError.INVALID_NETWORK_CONFIG, key + ": unterminated quote in \""
                            + text + "\"");
                }
                i = end + 1;
                if (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
                    throw new CniException(CniError.INVALID_NETWORK_CONFIG, key + ": text after a quoted word in \""
                            + text + "\"");
                }
            } else {
                while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
                    i++;
                }
            }
            words.add(text.substring(start, i));
        }
        return words;
    }
}
