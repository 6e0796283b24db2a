package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.set;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.who;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the index relies on to notice Go's host-local writing behind its back: a change of the network directory made
 * right after one of our operations (no pause in between, i.e. within the same timestamp tick) shows in the
 * directory's signature. Holds on Linux &ge; 6.13 (multigrain timestamps) for ext4 and tmpfs, with the floor bump in
 * {@link StoreIndex#commit}; checked here on the disk behind java.io.tmpdir and on tmpfs, thousands of times.
 */
class DirSignatureTest {

    private Path dataDir;

    private Path dataDir(String where) throws IOException {
        Path base = where.equals("tmpdir") ? Path.of(System.getProperty("java.io.tmpdir")) : Path.of(where);
        Assumptions.assumeTrue(Files.isDirectory(base), base + " is not there");
        dataDir = Files.createTempDirectory(base, "jcni-hl-sig");
        return dataDir;
    }

    @AfterEach
    void remove() throws IOException {
        if (dataDir != null) {
            try (Stream<Path> s = Files.walk(dataDir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tmpdir", "/dev/shm"})
    void createsAndRemovesRightAfterAStatChangeTheSignature(String where) throws IOException {
        Path dir = dataDir(where);
        ReservationFiles files = new ReservationFiles(dir);
        int unseen = 0;
        int n = 2000;
        for (int i = 0; i < n; i++) {
            Path a = dir.resolve("10.0.0." + (i % 200));
            DirSignature before = files.signature();
            Files.createFile(a);
            unseen += before.equals(files.signature()) ? 1 : 0;
            before = files.signature();
            Files.delete(a);
            unseen += before.equals(files.signature()) ? 1 : 0;
        }
        assertThat(unseen).as("changes the signature did not show, of " + 2 * n).isZero();
    }

    /** Go's DEL then Go's ADD, both right after ours: the case tmpfs alone would hide (see StoreIndex.commit). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tmpdir", "/dev/shm"})
    void goDeleteAndAddRightAfterOurAllocationAreSeenByTheNextOperation(String where) throws Exception {
        Path dir = dataDir(where).resolve("net1");
        List<RangeSet> sets = List.of(set("10.1.0.0/16"));
        int missed = 0;
        int n = where.equals("tmpdir") ? 150 : 800; // each find rebuilds: quadratic in n
        try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
            store.allocate(who("victim0"), sets, List.of(), OnExisting.REUSE);
            for (int i = 0; i < n; i++) {
                store.allocate(who("ours" + i), sets, List.of(), OnExisting.REUSE);
                // No pause: a Go DEL of the victim, then a Go ADD into a fresh file.
                Path victim = dir.resolve(store.find(who("victim" + i)).getFirst().address().toString());
                store.allocate(who("victim" + (i + 1)), sets, List.of(), OnExisting.REUSE);
                Files.delete(victim);
                Files.writeString(dir.resolve("10.1.255." + (i % 250)), "go" + i + "\r\neth0");
                if (store.find(who("go" + i)).isEmpty()) {
                    missed++;
                }
                Files.delete(dir.resolve("10.1.255." + (i % 250)));
            }
        }
        assertThat(missed).as("Go additions the next operation did not see, of " + n).isZero();
    }
}
