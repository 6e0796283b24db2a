package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ranges of every network of one etcd prefix ({@code <prefix>/networks}): a network's ranges are registered by
 * its ADD, so that no other network can be given an overlapping range, and they change only while the network holds
 * nothing outside the new ones.
 */
final class RangeRegistry {
    /** Operations per transaction (etcd's default --max-txn-ops is 128). */
    static final int MAX_TXN_OPS = 100;

    private final ClusterEtcd etcd;
    private final ClusterKeys keys;
    private final String network;

    RangeRegistry(ClusterEtcd etcd, ClusterKeys keys, String network) {
        this.etcd = etcd;
        this.keys = keys;
        this.network = network;
    }

    /**
     * Adds to {@code write} that the registry is as {@code registry} read it, and, when the network's ranges are not
     * registered as {@code rangeSets} yet, their registration (after the checks). Returns the registry's value that the
     * write puts, null if it does not register.
     */
    byte[] register(Kv registry, List<RangeSet> rangeSets, Txn write) throws IpamException {
        JsonObject networks = parse(registry);
        JsonArray ours = encode(rangeSets);
        write.modRevision(keys.registry(), AllocationRead.revisionOf(registry));
        if (holds(networks, ours)) {
            return null;
        }
        checkOverlaps(networks, rangeSets);
        requireNothingOutside(rangeSets, write);
        byte[] value = CniJson.encode(networks.with(network, ours));
        write.put(keys.registry(), value, 0);
        return value;
    }

    /**
     * For a write made from the node's view, which never reads etcd (a registration does: {@link #register}): adds to
     * {@code write} that the registry is as {@code registry} read it, and returns whether the network's ranges are
     * registered there as {@code rangeSets}. If not, the write is not to be sent.
     */
    boolean registeredAsRead(Kv registry, List<RangeSet> rangeSets, Txn write) throws IpamException {
        write.modRevision(keys.registry(), AllocationRead.revisionOf(registry));
        return holds(parse(registry), encode(rangeSets));
    }

    /** Whether the registry's {@code networks} hold this network's ranges as {@code ours} ({@link #encode}). */
    private boolean holds(JsonObject networks, JsonArray ours) {
        Optional<Json> registered = networks.get(network);
        return registered.isPresent() && registered.get().toString().equals(ours.toString());
    }

    /** The ranges of every network, {@code {"<network>": [["<subnet> <start> <end> <gateway>", ...], ...]}}. */
    private JsonObject parse(Kv registry) throws IpamException {
        if (registry == null) {
            return JsonObject.EMPTY;
        }
        try {
            Json json = Json.parse(registry.value);
            if (json instanceof JsonObject o) {
                return o;
            }
        } catch (CniException e) {
            // reported below
        }
        throw ClusterEtcd.corrupt(keys.registry(), "is not the network registry of this plugin");
    }

    static JsonArray encode(List<RangeSet> sets) {
        List<Json> out = new ArrayList<>(sets.size());
        for (RangeSet set : sets) {
            List<Json> ranges = new ArrayList<>(set.ranges().size());
            for (IpRange r : set.ranges()) {
                ranges.add(new JsonString(r.subnet() + " " + r.rangeStart() + " " + r.rangeEnd() + " "
                        + r.gateway()));
            }
            out.add(new JsonArray(ranges));
        }
        return new JsonArray(out);
    }
    /** Refuses ranges that share an address with another network's registered ranges (code 7). */
    private void checkOverlaps(JsonObject networks, List<RangeSet> sets) throws IpamException {
        for (Map.Entry<String, Json> entry : new LinkedHashMap<>(networks.members()).entrySet()) {
            if (entry.getKey().equals(network)) {
                continue;
            }
            if (!(entry.getValue() instanceof JsonArray theirSets)) {
                throw ClusterEtcd.corrupt(keys.registry(), "names network " + entry.getKey() + " without ranges");
            }
            for (Json theirSet : theirSets.elements()) {
                if (!(theirSet instanceof JsonArray theirRanges)) {
                    throw ClusterEtcd.corrupt(keys.registry(), "names network " + entry.getKey() + " without ranges");
                }
                for (Json text : theirRanges.elements()) {
                    IpRange theirs = parseRange(text);
                    for (int i = 0; i < sets.size(); i++) {
                        for (IpRange r : sets.get(i).ranges()) {
                            if (r.isV6() == theirs.isV6() && r.overlaps(theirs)) {
                                throw new IpamException(Reason.INVALID_RANGE, "range set " + i + " (" + r
                                        + ") overlaps range " + theirs + " of network \"" + entry.getKey()
                                        + "\" in the same etcd prefix");
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Before the network's ranges are registered anew (its first ADD, or a range change): refuses (code 7) while the
     * network holds an address outside the new ranges, and adds to {@code write} that this is still so when it
     * commits. Otherwise the old range would stop counting as taken: another network could be accepted on it and
     * hand out an address still held here (issue 23). The reservations must be released (DEL) first.
     *
     * <p>The network's address keys outside the ranges are the gaps between them in the key space of {@code ip/}
     * (fixed-width hex, so key order is address order, IPv4 before IPv6): one read with a range per gap, at one
     * revision, and one compare per gap that no key appeared there since.
     */
    private void requireNothingOutside(List<RangeSet> sets, Txn write) throws IpamException {
        List<IpRange> ranges = new ArrayList<>();
        for (RangeSet set : sets) {
            ranges.addAll(set.ranges());
        }
        ranges.sort(BY_KEY);
        List<String> gaps = new ArrayList<>(); // start, end (exclusive), start, end, ...
        String from = keys.ips();
        for (IpRange r : ranges) {
            String start = keys.ip(r.rangeStart());
            if (from.compareTo(start) < 0) {
                gaps.add(from);
                gaps.add(start);
            }
            String after = keys.ip(r.rangeEnd()) + "\0";
            if (after.compareTo(from) > 0) {
                from = after;
            }
        }
        gaps.add(from);
        gaps.add(EtcdClient.prefixEnd(keys.ips()));
        if (gaps.size() / 2 > MAX_TXN_OPS / 2) {
            throw new IpamException(Reason.INVALID_RANGE, "cluster-ipam: " + ranges.size() + " ranges are more than"
                    + " a change of them can be checked for in one etcd transaction");
        }
        Txn read = new Txn();
        for (int i = 0; i < gaps.size(); i += 2) {
            read.range(gaps.get(i), gaps.get(i + 1), false, 1);
        }
        TxnResult found = etcd.call(read);
        for (int i = 0; i < gaps.size() / 2; i++) {
            List<Kv> held = found.range(i);
            if (!held.isEmpty()) {
                Kv kv = held.getFirst();
                IpAddress ip = ClusterKeys.parseHex(kv.key);
                String[] holder = new String(kv.value, StandardCharsets.UTF_8).split("\n");
                throw new IpamException(Reason.INVALID_RANGE, "cluster-ipam: network \"" + network + "\" still holds "
                        + (ip == null ? kv.key : ip.toString()) + (holder.length == 3 ? " (container " + holder[1]
                        + ", " + holder[2] + " on node " + holder[0] + ")" : "") + " outside its new ranges "
                        + encode(sets) + "; its ranges cannot change until every address outside them is released"
                        + " (DEL)");
            }
            write.unchangedSince(gaps.get(2 * i), gaps.get(2 * i + 1), found.revision);
        }
    }

    /** Ranges in the order of their address keys: IPv4 first, then by start. */
    private static final Comparator<IpRange> BY_KEY = new Comparator<IpRange>() {
        @Override
        public int compare(IpRange a, IpRange b) {
            return a.isV6() != b.isV6() ? (a.isV6() ? 1 : -1) : a.rangeStart().compareTo(b.rangeStart());
        }
    };

    private IpRange parseRange(Json text) throws IpamException {
        if (text instanceof JsonString s) {
            String[] parts = s.value().split(" ");
            if (parts.length == 4) {
                try {
                    IpPrefix subnet = IpPrefix.parse(parts[0], "range");
                    Optional<IpAddress> start = IpAddress.parse(parts[1]);
                    Optional<IpAddress> end = IpAddress.parse(parts[2]);
                    Optional<IpAddress> gw = IpAddress.parse(parts[3]);
                    if (start.isPresent() && end.isPresent() && gw.isPresent()) {
                        return new IpRange(subnet, start.get(), end.get(), gw.get());
                    }
                } catch (CniException e) {
                    // reported below
                }
            }
        }
        throw ClusterEtcd.corrupt(keys.registry(), "holds a range that cannot be read: "
                + ClusterEtcd.printable(text.toString()));
    }

}
