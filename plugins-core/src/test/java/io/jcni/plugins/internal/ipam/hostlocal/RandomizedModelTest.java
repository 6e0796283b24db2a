package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.ip;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.prefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import io.jcni.plugins.internal.pkg.ipam.ranges.Reservation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random operations on the indexed store, mixed with what Go's host-local and admins do behind its back (files
 * created and removed, the index damaged, stores reopened), each checked against {@link GoModel} computed from the
 * directory itself: which address Go would hand out, and which files Go's DEL would remove.
 */
class RandomizedModelTest {

    private Path dataDir;
    private Path dir;

    @BeforeEach
    void dirs() throws IOException {
        StoreIndex.minCapacity = 16; // the table grows and compacts tombstones all the time
        Path shm = Path.of("/dev/shm");
        dataDir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jcni-hl-model");
        dir = dataDir.resolve("net1");
    }

    @AfterEach
    void remove() throws IOException {
        StoreIndex.minCapacity = 1024;
        try (Stream<Path> s = Files.walk(dataDir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Odd seeds: foreign changes in one step out of ten; even seeds: one in 500, so the table grows and compacts. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void everyDecisionMatchesGosDecisionOnTheSameDirectory(long seed) throws Exception {
        Random rnd = new Random(seed);
        int foreignPerMille = seed % 2 == 1 ? 100 : 2;
        // Small sets, so that exhaustion, wrap-around and multi-range walks happen often.
        List<RangeSet> sets = List.of(
                RangeSet.canonical(List.of(
                        new RangeSpec(prefix("10.1.0.0/27"), ip("10.1.0.5"), ip("10.1.0.20"), ip("10.1.0.9")),
                        RangeSpec.of(prefix("10.1.1.0/29")))),
                RangeSet.canonical(List.of(RangeSpec.of(prefix("fd00::/123")))));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            ids.add("c" + i);
        }
        HostLocalStore store = HostLocalStore.open(dataDir, "net1");
        try {
            for (int step = 0; step < 1500; step++) {
                String id = ids.get(rnd.nextInt(ids.size()));
                String ifname = rnd.nextInt(4) == 0 ? "eth1" : "eth0";
                Attachment who = new Attachment(id, ifname);
                String context = "seed " + seed + " step " + step + " " + who;
                if (rnd.nextInt(1000) < foreignPerMille) {
                    int op = rnd.nextInt(100);
                    context += " foreign " + op;
                    if (op < 50) {
                        foreignAdd(sets, rnd, "go" + rnd.nextInt(5));
                    } else if (op < 75) {
                        foreignDelete(rnd);
                    } else if (op < 90) {
                        store.close();
                        store = HostLocalStore.open(dataDir, "net1");
                    } else if (op < 95) {
                        Files.writeString(dataDir.resolve(".jcni/net1.index"), "not an index");
                    } else {
                        Files.write(dir.resolve(sets.get(0).ranges().get(1).rangeEnd().toString()), new byte[0]);
                    }
                    continue;
                }
                int op = rnd.nextInt(100);
                context += " op " + op;
                if (op < 50) {
                    allocate(store, sets, who, rnd, context);
                } else if (op < 80) {
                    List<IpAddress> expected = GoModel.releasable(dir, id, ifname);
                    assertThat(store.release(who)).as(context).containsExactlyInAnyOrderElementsOf(expected);
                    assertThat(GoModel.releasable(dir, id, ifname)).as(context).isEmpty();
                } else {
                    assertThat(store.find(who)).as(context).extracting(Reservation::address)
                            .containsExactlyInAnyOrderElementsOf(GoModel.releasable(dir, id, ifname));
                }
            }
        } finally {
            store.close();
        }
    }

    private void allocate(HostLocalStore store, List<RangeSet> sets, Attachment who, Random rnd, String context)
            throws IOException {
        List<IpAddress> requested = new ArrayList<>();
        if (rnd.nextInt(5) == 0) {
            // Sometimes just outside the ranges (10.1.0.4, 10.1.0.21, fd00::20): no set takes it.
            requested.add(rnd.nextBoolean() ? ip("10.1.0." + (4 + rnd.nextInt(18)))
                    : ip("fd00::" + Integer.toHexString(rnd.nextInt(33))));
        }
        // Go decides from the directory as it is before the call.
        List<IpAddress> held = GoModel.getById(dir, who.containerId(), who.ifname());
        List<IpAddress> expected = new ArrayList<>();
        String expectedError = null;
        for (int i = 0; i < sets.size() && expectedError == null; i++) {
            RangeSet set = sets.get(i);
            IpAddress req = requested.stream().filter(set::contains).findFirst().orElse(null);
            if (req != null) {
                expected.add(req);
                continue; // its outcome depends on the file: checked below
            }
            IpAddress existing = held.stream().filter(set::contains)
                    .min(Comparator.comparing(IpAddress::toString)).orElse(null);
            if (existing != null) {
                expected.add(existing);
                continue;
            }
            IpAddress next = GoModel.next(dir, set, i);
            if (next == null) {
                expectedError = "failed to allocate for range " + i + ": no IP addresses available in range set: " + set;
            }
            expected.add(next);
        }
        try {
            List<Allocation> got = store.allocate(who, sets, requested, OnExisting.REUSE);
            if (expectedError != null) {
                fail(context + ": expected " + expectedError + " but got " + got);
            }
            List<IpAddress> gotIps = got.stream().map(Allocation::address).toList();
            assertThat(gotIps).as(context).isEqualTo(expected);
            for (Allocation a : got) {
                assertThat(GoModel.getById(dir, who.containerId(), who.ifname())).as(context).contains(a.address());
            }
        } catch (IpamException e) {
            if (expectedError != null && !requested.isEmpty()) {
                return; // a request may fail first, for another reason
            }
            if (expectedError != null) {
                assertThat(e).as(context).hasMessage(expectedError);
            } else {
                // Only a requested address may fail here: taken by someone else, or the gateway.
                assertThat(requested).as(context + ": " + e.getMessage()).isNotEmpty();
                assertThat(e.getMessage()).as(context).containsAnyOf("is not available in range set",
                        "is subnet's gateway", "no IP addresses available", "failed to allocate all requested IPs");
            }
            // Nothing of a failed call stays behind.
            for (IpAddress ip : GoModel.getById(dir, who.containerId(), who.ifname())) {
                assertThat(held).as(context + ": left behind " + ip).contains(ip);
            }
        }
    }

    /** What Go's ADD does: exclusive create of the next address, then last_reserved_ip. */
    private void foreignAdd(List<RangeSet> sets, Random rnd, String id) throws IOException {
        int i = rnd.nextInt(sets.size());
        IpAddress next = GoModel.next(dir, sets.get(i), i);
        if (next == null || !Files.isDirectory(dir)) {
            return;
        }
        Files.writeString(dir.resolve(next.toString()), rnd.nextInt(4) == 0 ? id : id + "\r\neth0");
        Files.writeString(dir.resolve("last_reserved_ip." + i), next.toString());
    }

    /** What Go's DEL does to one reservation: remove its file. */
    private void foreignDelete(Random rnd) throws IOException {
        List<String> reserved = Fixtures.reserved(dir);
        if (!reserved.isEmpty()) {
            Files.delete(dir.resolve(reserved.get(rnd.nextInt(reserved.size()))));
        }
    }
}
