package io.jcni.spec;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code CNI_ARGS}: extra {@code K=V} pairs separated by {@code ;}, parsed as libcni's {@code types.LoadArgs} does.
 *
 * <ul>
 * <li>"" means no arguments. Every other piece between semicolons must split on {@code =} into exactly two parts, so
 * {@code "A"}, {@code "A=B=C"} and a trailing {@code ";"} (an empty piece) are rejected.</li>
 * <li>Keys are case-sensitive; a repeated key keeps its last value (libcni sets the field twice).</li>
 * <li>{@code IgnoreUnknown} takes libcni's boolean forms ({@code 1}, {@code 0}, {@code true}, {@code false}, any
 * case). Unless it is true, {@link #requireKnown} rejects keys the plugin does not know.</li>
 * </ul>
 * Every violation is code 4 ({@link CniError#INVALID_ENVIRONMENT_VARIABLES}) and names {@code CNI_ARGS}.
 */
public final class CniArgs {
    /** The key that lets a plugin ignore arguments it does not know. */
    public static final String IGNORE_UNKNOWN = "IgnoreUnknown";

    private static final CniArgs EMPTY = new CniArgs(List.of());

    private final List<Map.Entry<String, String>> pairs;

    private CniArgs(List<Map.Entry<String, String>> pairs) {
        this.pairs = pairs;
    }

    /** No arguments. */
    public static CniArgs empty() {
        return EMPTY;
    }

    /** Parses the value of {@code CNI_ARGS}; null or "" means no arguments. */
    public static CniArgs parse(String env) throws CniException {
        if (env == null || env.isEmpty()) {
            return EMPTY;
        }
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (String pair : env.split(";", -1)) {
            int eq = pair.indexOf('=');
            if (eq < 0 || pair.indexOf('=', eq + 1) >= 0) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES,
                        "CNI_ARGS: invalid pair \"" + pair + "\"", "expected KEY=VALUE pairs separated by ';'");
            }
            pairs.add(Map.entry(pair.substring(0, eq), pair.substring(eq + 1)));
        }
        CniArgs args = new CniArgs(List.copyOf(pairs));
        args.ignoreUnknown(); // validates the flag's value now rather than on first use
        return args;
    }

    /**
     * Arguments a runtime passes; rejects keys or values that would not parse back ({@code ;} or {@code =} inside, or
     * an empty key).
     */
    public static CniArgs of(List<Map.Entry<String, String>> pairs) throws CniException {
        for (Map.Entry<String, String> pair : pairs) {
            String key = pair.getKey();
            String value = pair.getValue();
            if (key == null || value == null || key.isEmpty() || key.indexOf(';') >= 0 || key.indexOf('=') >= 0
                    || value.indexOf(';') >= 0 || value.indexOf('=') >= 0) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES,
                        "CNI_ARGS: invalid pair \"" + key + "=" + value + "\"",
                        "keys must be non-empty and neither keys nor values may contain ';' or '='");
            }
        }
        return pairs.isEmpty() ? EMPTY : new CniArgs(List.copyOf(pairs));
    }

    /** The pairs in their original order, repeats included. */
    public List<Map.Entry<String, String>> pairs() {
        return pairs;
    }

    public boolean isEmpty() {
        return pairs.isEmpty();
    }

    /** The value of {@code key} (the last one if repeated). */
    public Optional<String> get(String key) {
        for (int i = pairs.size() - 1; i >= 0; i--) {
            if (pairs.get(i).getKey().equals(key)) {
                return Optional.of(pairs.get(i).getValue());
            }
        }
        return Optional.empty();
    }

    /** The value of {@code key} as libcni's {@code UnmarshallableBool}: 1/0/true/false in any case. */
    public Optional<Boolean> bool(String key) throws CniException {
        Optional<String> value = get(key);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        return switch (value.get().toLowerCase(java.util.Locale.ROOT)) {
            case "1", "true" -> Optional.of(true);
            case "0", "false" -> Optional.of(false);
            default -> throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES,
                    "CNI_ARGS: invalid boolean value of " + key + ": \"" + value.get() + "\"",
                    "expected 1, 0, true or false");
        };
    }

    /** The value of {@code key} as an IP address (e.g. {@code IP=10.1.2.3}); "" counts as absent, as in libcni. */
    public Optional<InetAddress> ip(String key) throws CniException {
        Optional<String> value = get(key);
        if (value.isEmpty() || value.get().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(IpText.parseAddress(value.get(), "CNI_ARGS " + key, CniError.INVALID_ENVIRONMENT_VARIABLES));
    }

    /** True if {@code IgnoreUnknown} is set to a true value. */
    public boolean ignoreUnknown() throws CniException {
        return bool(IGNORE_UNKNOWN).orElse(false);
    }

    /**
     * Rejects keys outside {@code known} (and other than {@code IgnoreUnknown}) unless {@code IgnoreUnknown} is true;
     * the message lists the unknown pairs as libcni does.
     */
    public CniArgs requireKnown(Collection<String> known) throws CniException {
        if (ignoreUnknown()) {
            return this;
        }
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, String> pair : pairs) {
            if (!pair.getKey().equals(IGNORE_UNKNOWN) && !known.contains(pair.getKey())) {
                unknown.add(pair.getKey() + "=" + pair.getValue());
            }
        }
        if (!unknown.isEmpty()) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "CNI_ARGS: unknown args " + unknown);
        }
        return this;
    }

    /** The {@code CNI_ARGS} text: pairs joined with {@code ;}. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, String> pair : pairs) {
            if (!text.isEmpty()) {
                text.append(';');
            }
            text.append(pair.getKey()).append('=').append(pair.getValue());
        }
        return text.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CniArgs args && args.pairs.equals(pairs);
    }

    @Override
    public int hashCode() {
        return pairs.hashCode();
    }
}
