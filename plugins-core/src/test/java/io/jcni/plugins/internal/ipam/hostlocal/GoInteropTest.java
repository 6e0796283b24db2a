package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.contents;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.ip;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.internal.ipam.hostlocal.GoHostLocal.Answer;
import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's Go host-local 1.1.1 and this store on the same data directory: each reads what the other wrote, and for
 * the same operations both hand out the same addresses, fail with the same messages and leave the same files.
 * Skipped where {@code /usr/lib/cni/host-local} is not installed (package containernetworking-plugins).
 */
class GoInteropTest {

    private static final String RANGES = "[[{\"subnet\":\"10.1.0.0/29\"}],[{\"subnet\":\"fd00::/125\"}]]";

    @TempDir
    Path dataDir;

    private List<RangeSet> sets;

    @BeforeEach
    void needsGo() throws Exception {
        Assumptions.assumeTrue(GoHostLocal.available(), "Go host-local not installed at " + GoHostLocal.BINARY);
        sets = List.of(set("10.1.0.0/29"), set("fd00::/125"));
    }

    private static Attachment who(String id) {
        return new Attachment(id, "eth0");
    }

    private static List<String> addresses(List<Allocation> as) {
        return as.stream().map(a -> a.address().toString()).toList();
    }

    @Test
    void goAllocatesAndOursFindsItGoesOnAfterItAndReleasesIt() throws Exception {
        GoHostLocal go = new GoHostLocal(dataDir, RANGES);
        assertThat(go.add("g1", "eth0").addresses()).containsExactly("10.1.0.2", "fd00::2");
        assertThat(go.add("g2", "eth0").addresses()).containsExactly("10.1.0.3", "fd00::3");
        try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
            assertThat(store.find(who("g1"))).extracting(r -> r.address().toString())
                    .containsExactlyInAnyOrder("10.1.0.2", "fd00::2");
            // Not handed out twice; the round-robin goes on after Go's last_reserved_ip.
            assertThat(addresses(store.allocate(who("o1"), sets, List.of(), OnExisting.REUSE)))
                    .containsExactly("10.1.0.4", "fd00::4");
            assertThatThrownBy(() -> store.allocate(who("o2"), sets, List.of(ip("10.1.0.3")), OnExisting.REUSE))
                    .hasMessage("failed to allocate for range 0: requested IP address 10.1.0.3 is not available in "
                            + "range set 10.1.0.1-10.1.0.6");
            assertThatThrownBy(() -> store.allocate(who("g1"), sets, List.of(), OnExisting.REJECT))
                    .hasMessage("failed to allocate for range 0: 10.1.0.2 has been allocated to g1, duplicate "
                            + "allocation is not allowed");
            assertThat(store.release(who("g1"))).extracting(IpAddress::toString)
                    .containsExactlyInAnyOrder("10.1.0.2", "fd00::2");
        }
        assertThat(go.check("g1", "eth0").succeeded()).isFalse();
        assertThat(go.check("g2", "eth0").succeeded()).isTrue();
    }

    @Test
    void oursAllocatesAndGoChecksReleasesAndGoesOnAfterIt() throws Exception {
        GoHostLocal go = new GoHostLocal(dataDir, RANGES);
        try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
            assertThat(addresses(store.allocate(who("o1"), sets, List.of(), OnExisting.REUSE)))
                    .containsExactly("10.1.0.2", "fd00::2");
            assertThat(addresses(store.allocate(who("o2"), sets, List.of(), OnExisting.REUSE)))
                    .containsExactly("10.1.0.3", "fd00::3");
            assertThat(go.check("o1", "eth0").succeeded()).isTrue();
            assertThat(go.add("g1", "eth0").addresses()).containsExactly("10.1.0.4", "fd00::4");
            Answer del = go.del("o1", "eth0");
            assertThat(del.exit()).as(del.stdout()).isZero();
            assertThat(store.find(who("o1"))).isEmpty();
            assertThat(store.find(who("g1"))).hasSize(2);
            // Go freed .2; the round-robin reaches it only after the end of the range.
            assertThat(addresses(store.allocate(who("o3"), sets, List.of(), OnExisting.REUSE)))
                    .containsExactly("10.1.0.5", "fd00::5");
            assertThat(addresses(store.allocate(who("o4"), sets, List.of(), OnExisting.REUSE)))
                    .containsExactly("10.1.0.6", "fd00::6");
            assertThat(addresses(store.allocate(who("o5"), sets, List.of(), OnExisting.REUSE)))
                    .containsExactly("10.1.0.2", "fd00::7");
        }
        assertThat(go.add("g2", "eth0").error())
                .isEqualTo("failed to allocate for range 0: no IP addresses available in range set: 10.1.0.1-10.1.0.6");
    }

    /** The same script against Go (one data dir) and against this store (another): same answers, same files. */
    @Test
    void sameOperationsGiveTheSameAnswersAndTheSameFilesAsGo() throws Exception {
        Path goDir = Files.createDirectories(dataDir.resolve("go"));
        Path ourDir = Files.createDirectories(dataDir.resolve("ours"));
        GoHostLocal go = new GoHostLocal(goDir, RANGES);
        Files.createDirectories(goDir.resolve("net1"));
        Files.createDirectories(ourDir.resolve("net1"));
        // A reservation from host-local < 0.7 in both directories.
        Files.writeString(goDir.resolve("net1/10.1.0.6"), "legacy");
        Files.writeString(ourDir.resolve("net1/10.1.0.6"), "legacy");
        String[][] script = {
            {"ADD", "a"}, {"ADD", "b"}, {"ADD", "c"}, {"DEL", "b"}, {"ADD", "d"}, {"ADD", "a"},
            {"ADD", "e", "10.1.0.3"}, {"ADD", "f", "10.1.0.4"}, {"ADD", "f", "10.1.0.1"}, {"ADD", "f", "10.9.9.9"},
            {"ADD", "f", "fd00::6"}, {"ADD", "g"}, {"DEL", "legacy"}, {"ADD", "h"}, {"ADD", "i"}, {"DEL", "a"},
            {"DEL", "a"}, {"ADD", "j"}, {"ADD", "legacy"}, {"DEL", "nobody"}, {"DEL", "c"}, {"DEL", "d"},
        };
        try (HostLocalStore store = HostLocalStore.open(ourDir, "net1")) {
            for (String[] step : script) {
                String label = String.join(" ", step);
                Attachment who = who(step[1]);
                if (step[0].equals("ADD")) {
                    Answer g = step.length > 2 ? go.add(step[1], "eth0", step[2]) : go.add(step[1], "eth0");
                    String ours;
                    try {
                        List<IpAddress> req = step.length > 2 ? List.of(ip(step[2])) : List.of();
                        ours = String.join(",", addresses(store.allocate(who, sets, req, OnExisting.REJECT)));
                    } catch (IpamException e) {
                        ours = "error: " + e.getMessage();
                    }
                    String theirs = g.succeeded() ? String.join(",", g.addresses()) : "error: " + g.error();
                    assertThat(ours).as(label).isEqualTo(theirs);
                } else {
                    assertThat(go.del(step[1], "eth0").exit()).as(label).isZero();
                    store.release(who);
                }
                TreeMap<String, String> goFiles = contents(goDir.resolve("net1"));
                TreeMap<String, String> ourFiles = contents(ourDir.resolve("net1"));
                goFiles.remove("lock");
                ourFiles.remove("lock");
                assertThat(ourFiles).as("files after " + label).isEqualTo(goFiles);
            }
        }
    }

    /**
     * Go and this store taking turns at random on one directory, as during a migration: every ADD of either gets
     * the address Go's own allocator would pick, no address is ever handed out twice, each finds the other's
     * reservations, and DELs by either leave nothing.
     */
    @Test
    void goAndOursTakingTurnsAtRandomOnOneDirectory() throws Exception {
        GoHostLocal go = new GoHostLocal(dataDir, "[[{\"subnet\":\"10.1.0.0/28\"}],[{\"subnet\":\"fd00::/124\"}]]");
        List<RangeSet> bigger = List.of(set("10.1.0.0/28"), set("fd00::/124"));
        Path dir = dataDir.resolve("net1");
        Random rnd = new Random(5);
        Map<String, List<String>> holding = new HashMap<>();
        List<String> ids = new ArrayList<>();
        try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
            for (int step = 0; step < 120; step++) {
                boolean useGo = rnd.nextBoolean();
                String label = "step " + step + (useGo ? " go" : " ours");
                if (holding.size() < 10 && (holding.isEmpty() || rnd.nextInt(3) > 0)) {
                    String id = "x" + step;
                    List<String> expected = new ArrayList<>();
                    for (int i = 0; i < bigger.size(); i++) {
                        IpAddress next = GoModel.next(dir, bigger.get(i), i);
                        expected.add(next == null ? null : next.toString());
                    }
                    List<String> got = useGo ? go.add(id, "eth0").addresses()
                            : addresses(store.allocate(who(id), bigger, List.of(), OnExisting.REJECT));
                    assertThat(got).as(label).isEqualTo(expected);
                    for (List<String> other : holding.values()) {
                        assertThat(other).as(label).doesNotContainAnyElementsOf(got);
                    }
                    holding.put(id, got);
                    ids.add(id);
                } else {
                    String id = ids.remove(rnd.nextInt(ids.size()));
                    List<String> held = holding.remove(id);
                    if (useGo) {
                        assertThat(go.check(id, "eth0").succeeded()).as(label).isTrue();
                        assertThat(go.del(id, "eth0").exit()).as(label).isZero();
                    } else {
                        assertThat(store.find(who(id))).as(label).extracting(r -> r.address().toString())
                                .containsExactlyInAnyOrderElementsOf(held);
                        assertThat(store.release(who(id))).as(label).extracting(IpAddress::toString)
                                .containsExactlyInAnyOrderElementsOf(held);
                    }
                }
            }
            for (String id : ids) {
                if (rnd.nextBoolean()) {
                    go.del(id, "eth0");
                } else {
                    store.release(who(id));
                }
            }
        }
        assertThat(contents(dir).keySet()).containsExactly("last_reserved_ip.0", "last_reserved_ip.1", "lock");
    }
}
