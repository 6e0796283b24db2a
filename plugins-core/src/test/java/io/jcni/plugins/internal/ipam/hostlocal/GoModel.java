package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Go host-local 1.1.1's decisions computed the slow, literal way from a directory: its {@code RangeIter} (ported
 * statement by statement, recursion and all) over the names present, and its {@code GetByID}/{@code ReleaseByID}
 * content matching over every file. The oracle for randomized tests of the indexed store.
 */
final class GoModel {

    private GoModel() {}

    /** The address Go's allocator would reserve next in {@code set} (range set number {@code index}), or null. */
    static IpAddress next(Path dir, RangeSet set, int index) throws IOException {
        Set<String> names = names(dir);
        IpAddress last = null;
        try {
            last = IpAddress.parse(Files.readString(dir.resolve("last_reserved_ip." + index))).orElse(null);
        } catch (NoSuchFileException e) {
            // Go: os.IsNotExist, start from the first range
        }
        Iter it = new Iter(set.ranges());
        if (last != null && set.contains(last)) {
            for (int i = 0; i < set.ranges().size(); i++) {
                if (set.ranges().get(i).contains(last)) {
                    it.rangeIdx = i;
                    it.cur = last;
                    break;
                }
            }
        } else {
            it.rangeIdx = 0;
            it.startIP = set.ranges().getFirst().rangeStart();
        }
        for (IpAddress ip = it.next(); ip != null; ip = it.next()) {
            if (!names.contains(ip.toString())) {
                return ip;
            }
        }
        return null;
    }

    private static final class Iter {
        final List<IpRange> ranges;
        int rangeIdx;
        IpAddress cur;
        IpAddress startIP;

        Iter(List<IpRange> ranges) {
            this.ranges = ranges;
        }

        IpAddress next() {
            IpRange r = ranges.get(rangeIdx);
            if (cur == null) {
                cur = r.rangeStart();
                startIP = cur;
                if (cur.equals(r.gateway())) {
                    return next();
                }
                return cur;
            }
            if (cur.equals(r.rangeEnd())) {
                rangeIdx = (rangeIdx + 1) % ranges.size();
                r = ranges.get(rangeIdx);
                cur = r.rangeStart();
            } else {
                cur = cur.next();
            }
            if (startIP == null) {
                startIP = cur;
            } else if (cur.equals(startIP)) {
                return null;
            }
            if (cur.equals(r.gateway())) {
                return next();
            }
            return cur;
        }
    }

    /** Go's GetByID: addresses of files whose trimmed content is {@code id\r\nifname} or {@code id}. */
    static List<IpAddress> getById(Path dir, String id, String ifname) throws IOException {
        List<IpAddress> out = new ArrayList<>();
        for (String name : names(dir)) {
            String c = content(dir, name);
            if (c != null && (c.equals(id + "\r\n" + ifname) || c.equals(id))) {
                IpAddress.parse(name).ifPresent(out::add);
            }
        }
        return out;
    }

    /** Go's ReleaseByID/FindByID matching: exact files, or else legacy ones (names that parse as addresses). */
    static List<IpAddress> releasable(Path dir, String id, String ifname) throws IOException {
        List<IpAddress> exact = new ArrayList<>();
        List<IpAddress> legacy = new ArrayList<>();
        for (String name : names(dir)) {
            String c = content(dir, name);
            var ip = IpAddress.parse(name);
            if (c == null || ip.isEmpty()) {
                continue;
            }
            if (c.equals(id + "\r\n" + ifname)) {
                exact.add(ip.get());
            } else if (c.equals(id)) {
                legacy.add(ip.get());
            }
        }
        return exact.isEmpty() ? legacy : exact;
    }

    private static String content(Path dir, String name) throws IOException {
        Path p = dir.resolve(name);
        if (!Files.isRegularFile(p)) {
            return null;
        }
        return ReservationFiles.goTrimSpace(Files.readString(p, StandardCharsets.UTF_8));
    }

    static Set<String> names(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            TreeSet<String> out = new TreeSet<>();
            s.forEach(p -> out.add(p.getFileName().toString()));
            return out;
        }
    }
}
