package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import io.jcni.spec.IpPrefix;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Small builders and directory readers shared by the host-local tests. */
final class Fixtures {

    private Fixtures() {}

    static IpAddress ip(String s) {
        return IpAddress.parse(s).orElseThrow(() -> new IllegalArgumentException(s));
    }

    static IpPrefix prefix(String s) {
        try {
            return IpPrefix.parse(s, "test");
        } catch (io.jcni.spec.CniException e) {
            throw new IllegalArgumentException(s, e);
        }
    }

    /** A range set of whole subnets, e.g. {@code set("10.1.0.0/24")}. */
    static RangeSet set(String... subnets) throws IpamException {
        List<RangeSpec> specs = new ArrayList<>();
        for (String s : subnets) {
            specs.add(RangeSpec.of(prefix(s)));
        }
        return RangeSet.canonical(specs);
    }

    /** A range set of one range with explicit bounds (null for a default). */
    static RangeSet range(String subnet, String start, String end, String gateway) throws IpamException {
        return RangeSet.canonical(List.of(new RangeSpec(prefix(subnet),
                start == null ? null : ip(start), end == null ? null : ip(end), gateway == null ? null : ip(gateway))));
    }

    static Attachment who(String id) {
        return new Attachment(id, "eth0");
    }

    /** Every entry of the network directory with its content, in name order. */
    static TreeMap<String, String> contents(Path dir) throws IOException {
        TreeMap<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                out.put(p.getFileName().toString(),
                        Files.isDirectory(p) ? "<dir>" : Files.readString(p, StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** The names of the reservation files (entries named as an address). */
    static List<String> reserved(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        for (String name : contents(dir).keySet()) {
            if (IpAddress.parse(name).isPresent()) {
                out.add(name);
            }
        }
        return out;
    }
}
