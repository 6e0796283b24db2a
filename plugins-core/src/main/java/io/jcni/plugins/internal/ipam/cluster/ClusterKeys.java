package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The key layout of one network in etcd and the values of its address and owner keys (the table is in the package
 * documentation). Nothing here talks to etcd.
 */
final class ClusterKeys {
    private final String prefix;
    private final String root;

    ClusterKeys(String prefix, String network) {
        this.prefix = prefix;
        this.root = prefix + "/" + network + "/";
    }

    /** {@code <prefix>/networks}: every network's ranges. */
    String registry() {
        return prefix + "/networks";
    }

    String owner(String node, Attachment who) {
        return owners(node) + who.containerId() + "/" + who.ifname();
    }

    /** The prefix of {@code node}'s owner keys. */
    String owners(String node) {
        return root + "owner/" + node + "/";
    }

    /** The prefix of every address key. */
    String ips() {
        return root + "ip/";
    }

    String ip(IpAddress ip) {
        return root + "ip/" + hex(ip);
    }

    String block(IpAddress blockStart) {
        return root + "block/" + hex(blockStart);
    }

    /** The prefix of {@code node}'s affinity keys (its claimed blocks). */
    String affinities(String node) {
        return root + "affinity/" + node + "/";
    }

    String affinity(String node, IpAddress blockStart) {
        return affinities(node) + hex(blockStart);
    }

    /** The prefix of the liveness keys. */
    String nodes() {
        return root + "node/";
    }

    String node(String node) {
        return nodes() + node;
    }

    /** The prefix of the member keys. */
    String members() {
        return root + "member/";
    }

    String member(String node) {
        return members() + node;
    }

    String imported(String node) {
        return root + "imported/" + node;
    }

    /** {@code 4/0a000105} or {@code 6/<32 hex digits>}: fixed width, so key order is address order. */
    static String hex(IpAddress ip) {
        if (ip.isV4()) {
            String h = Long.toHexString(ip.low());
            return "4/" + "00000000".substring(h.length()) + h;
        }
        String hi = Long.toHexString(ip.high());
        String lo = Long.toHexString(ip.low());
        return "6/" + "0000000000000000".substring(hi.length()) + hi + "0000000000000000".substring(lo.length()) + lo;
    }

    /** The address of a key ending in {@link #hex}; null if it is not one. */
    static IpAddress parseHex(String key) {
        int slash = key.lastIndexOf('/');
        if (slash < 1) {
            return null;
        }
        String digits = key.substring(slash + 1);
        char family = key.charAt(slash - 1);
        try {
            if (family == '4' && digits.length() == 8) {
                return IpAddress.v4((int) Long.parseLong(digits, 16));
            }
            if (family == '6' && digits.length() == 32) {
                return IpAddress.v6(Long.parseUnsignedLong(digits.substring(0, 16), 16),
                        Long.parseUnsignedLong(digits.substring(16), 16));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }

    /** The address of {@code kv}'s key; a corrupt-key failure naming {@code what} if it is none. */
    static IpAddress addressOf(Kv kv, String what) throws IpamException {
        IpAddress ip = parseHex(kv.key);
        if (ip == null) {
            throw ClusterEtcd.corrupt(kv.key, "not " + what + " of this plugin");
        }
        return ip;
    }

    /** The value of an address key: who holds it, {@code <node>\n<containerID>\n<ifname>}. */
    static byte[] holder(String node, Attachment who) {
        return (node + "\n" + who.containerId() + "\n" + who.ifname()).getBytes(StandardCharsets.UTF_8);
    }

    /** The value of an owner key: the attachment's addresses, {@code 4/0a400105,6/fd40...}. */
    static byte[] ownerValue(List<IpAddress> ips) {
        StringBuilder sb = new StringBuilder();
        for (IpAddress ip : ips) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(hex(ip));
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The addresses of an owner key ({@code kv} may be null: none). */
    static List<IpAddress> parseOwner(Kv kv) throws IpamException {
        List<IpAddress> out = new ArrayList<>(2);
        if (kv == null) {
            return out;
        }
        String v = new String(kv.value, StandardCharsets.UTF_8);
        if (v.isEmpty()) {
            return out;
        }
        int from = 0;
        while (from <= v.length()) {
            int comma = v.indexOf(',', from);
            String item = comma < 0 ? v.substring(from) : v.substring(from, comma);
            IpAddress ip = parseHex("x/" + item);
            if (ip == null || !("x/" + item).equals("x/" + hex(ip))) {
                throw ClusterEtcd.corrupt(kv.key, "holds \"" + ClusterEtcd.printable(v)
                        + "\", not a list of addresses");
            }
            out.add(ip);
            if (comma < 0) {
                break;
            }
            from = comma + 1;
        }
        return out;
    }

    /** The attachment of an owner key under {@code prefix} ({@link #owners}). */
    static Attachment attachmentOf(String ownerKey, String prefix) throws IpamException {
        String rest = ownerKey.substring(prefix.length());
        int slash = rest.lastIndexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            throw ClusterEtcd.corrupt(ownerKey, "not an owner key of this plugin");
        }
        return new Attachment(rest.substring(0, slash), rest.substring(slash + 1));
    }
}
