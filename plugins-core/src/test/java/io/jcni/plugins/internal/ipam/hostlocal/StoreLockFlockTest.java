package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.set;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.who;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's lock must exclude a process holding {@code flock(2)} on {@code <dataDir>/<network>/lock}, which is how
 * Go's host-local locks it. Regression for the interim FileChannel (fcntl) lock, which Linux lets coexist with flock.
 */
class StoreLockFlockTest {

    @TempDir
    Path dataDir;

    @Test
    void allocationWaitsUntilAnotherProcessReleasesItsFlock() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/flock")), "util-linux flock(1) is needed");
        Path network = Files.createDirectories(dataDir.resolve("net1"));
        Path held = dataDir.resolve("held");
        Path released = dataDir.resolve("released");
        // The holder announces that it holds the lock, keeps it a moment, and records that it is about to release.
        Process holder = new ProcessBuilder("/usr/bin/flock", "-x", network.resolve("lock").toString(), "sh", "-c",
                "touch '" + held + "'; sleep 0.4; touch '" + released + "'").inheritIO().start();
        try {
            for (int i = 0; i < 500 && !Files.exists(held); i++) {
                Thread.sleep(10);
            }
            assertThat(held).as("the flock holder started").exists();

            try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
                assertThat(store.allocate(who("c1"), List.of(set("10.9.0.0/24")), List.of(), OnExisting.REUSE))
                        .extracting(Allocation::cidr).containsExactly("10.9.0.2/24");
            }
            // Only possible if the store blocked on the lock until the holder was done with it.
            assertThat(released).as("the store got the lock only after the other process let it go").exists();
        } finally {
            holder.destroyForcibly();
            holder.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
