package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.set;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.who;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What someone with write access to the data directory can plant there must not redirect a write or block an
 * operation: a symbolic link at the index path is not written through (the store works from memory instead), and a
 * FIFO named like an address or like {@code last_reserved_ip.0} is never opened for reading.
 */
class HostileDataDirTest {
    private static final Duration HANG = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;

    private HostLocalStore store;
    private Path dir;
    private final List<Path> fifos = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        store = HostLocalStore.open(dataDir, "net1");
        dir = Files.createDirectories(dataDir.resolve("net1"));
    }

    @AfterEach
    void close() throws Exception {
        for (Path fifo : fifos) {
            // A reader stuck in open(2) (the bug this guards against) is released by a writer; O_RDWR never blocks.
            // First: the stuck thread holds the store, which close() waits for.
            FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
        }
        store.close();
    }

    private Path fifo(Path path) throws Exception {
        assertThat(new ProcessBuilder("mkfifo", path.toString()).inheritIO().start().waitFor()).isZero();
        fifos.add(path);
        return path;
    }

    private String add(String id) throws IpamException {
        return store.allocate(who(id), List.of(set("10.1.0.0/24")), List.of(), OnExisting.REUSE).getFirst().cidr();
    }

    @Test
    void aSymbolicLinkPlantedAtTheIndexPathIsNotWrittenThrough() throws Exception {
        Path precious = Files.writeString(dataDir.getParent().resolve("precious-" + dataDir.getFileName()),
                "not an index");
        Path index = Files.createDirectories(dataDir.resolve(HostLocalStore.INDEX_DIR)).resolve("net1.index");
        Files.createSymbolicLink(index, precious);
        try {
            assertThat(add("c1")).isEqualTo("10.1.0.2/24");
            assertThat(add("c2")).isEqualTo("10.1.0.3/24");
            assertThat(store.release(who("c1"))).extracting(IpAddress::toString).containsExactly("10.1.0.2");
            assertThat(store.find(who("c2"))).extracting(r -> r.address().toString()).containsExactly("10.1.0.3");

            assertThat(precious).hasContent("not an index");
            assertThat(Files.isSymbolicLink(index)).isTrue();
        } finally {
            Files.deleteIfExists(precious);
        }
    }

    @Test
    void aFifoNamedLikeAnAddressIsTakenByNobodyAndNeverBlocksAnOperation() throws Exception {
        fifo(dir.resolve("10.1.0.2"));

        assertTimeoutPreemptively(HANG, () -> {
            assertThat(add("c1")).as("the FIFO's address is skipped").isEqualTo("10.1.0.3/24");
            assertThat(store.release(who("c1"))).extracting(IpAddress::toString).containsExactly("10.1.0.3");
            assertThat(store.gc(List.of())).as("GC leaves what is not a reservation file alone").isEmpty();
        });
        assertThat(Files.exists(dir.resolve("10.1.0.2"))).isTrue();
    }

    @Test
    void aFifoAtLastReservedIpFailsTheAddAtOnceWithoutAReservationLeft() throws Exception {
        fifo(dir.resolve("last_reserved_ip.0"));

        assertTimeoutPreemptively(HANG, () -> assertThatThrownBy(() -> add("c1"))
                .isInstanceOfSatisfying(IpamException.class, e -> {
                    assertThat(e.reason()).isEqualTo(IpamException.Reason.STORE_FAILURE);
                    assertThat(e.getMessage()).isEqualTo("host-local store " + dir + ": not a regular file: not "
                            + "written (" + dir.resolve("last_reserved_ip.0") + ")");
                }));
        assertThat(addressNames()).isEmpty();
    }

    /** Entries named as an address, by name only (Fixtures.reserved reads every file, FIFOs too). */
    private List<String> addressNames() throws Exception {
        try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).filter(n -> IpAddress.parse(n).isPresent())
                    .sorted().toList();
        }
    }

    @Test
    void aCommitThatFailsAfterTheAllocationReleasesWhatTheAllocationReserved() throws Exception {
        Failpoints.hook = point -> {
            if (point.equals(Failpoints.BEFORE_COMMIT)) {
                throw new IllegalStateException("commit failed");
            }
        };
        try {
            assertThatThrownBy(() -> add("c1")).hasMessage("commit failed");
        } finally {
            Failpoints.hook = null;
        }
        assertThat(Fixtures.reserved(dir)).as("the failed ADD left no reservation").isEmpty();
        assertThat(add("c1")).as("last_reserved_ip moved on, as in Go").isEqualTo("10.1.0.3/24");
    }
}
