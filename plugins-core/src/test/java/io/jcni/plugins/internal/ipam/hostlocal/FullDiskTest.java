package io.jcni.plugins.internal.ipam.hostlocal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * host-local on a nearly full file system: a tmpfs of a few pages mounted for the test, where Go's small files fit
 * and jcni's index does not. jcni used to fail every ADD and DEL there with code 5 (the index could not be created or
 * rebuilt), and an ADD could leave its reservation file behind, also on state Go's host-local had written. Now the
 * index falls back to memory (a scan per operation, as Go works), a failed ADD removes its own reservation, and DEL
 * always releases. tmpfs counts file pages, not directories or empty files: each reservation file and each
 * {@code last_reserved_ip.N} costs one page (4 KiB).
 */
class FullDiskTest {
    private static final String RANGES = "[[{\"subnet\":\"10.1.0.0/24\"}]]";

    private final Skel skel = PluginRegistry.skel("host-local");

    @TempDir
    Path tmp;
    private Path mount;
    private boolean mounted;

    @BeforeEach
    void requireRoot() throws Exception {
        assumeTrue(root(), "needs root: mounts a tmpfs");
        mount = Files.createDirectory(tmp.resolve("tiny"));
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            if (run("umount", mount.toString()) != 0) {
                run("umount", "-l", mount.toString());
            }
        }
    }

    /** Mounts a tmpfs of {@code pages} 4 KiB pages at {@code mount}; returns the data directory on it. */
    private Path tinyDisk(int pages) throws Exception {
        assertThat(run("mount", "-t", "tmpfs", "-o", "size=" + (pages * 4) + "k,mode=0700", "tmpfs",
                mount.toString())).isZero();
        mounted = true;
        return mount.resolve("data");
    }

    private String conf(Path dataDir) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\","
                + "\"dataDir\":\"" + dataDir + "\",\"ranges\":" + RANGES + "}}";
    }

    private PluginCall.Outcome call(String command, String containerId, Path dataDir) {
        return PluginCall.of(command).containerId(containerId).stdin(conf(dataDir)).run(skel);
    }

    private static List<String> reserved(Path dataDir) throws IOException {
        return Fixtures.reserved(dataDir.resolve("net1"));
    }

    @Test
    void addAndDelWorkWhenTheIndexCannotBeWrittenAndAFullDiskLeavesNoHalfReservation() throws Exception {
        Path data = tinyDisk(3);

        Result first = (Result) call("ADD", "c1", data).result();
        Result second = (Result) call("ADD", "c2", data).result();
        assertThat(first.ips().getFirst().address().toString()).isEqualTo("10.1.0.2/24");
        assertThat(second.ips().getFirst().address().toString()).isEqualTo("10.1.0.3/24");
        assertThat(reserved(data)).containsExactly("10.1.0.2", "10.1.0.3");
        Path index = data.resolve(".jcni/net1.index");
        assertThat(!Files.exists(index) || Files.size(index) == 0).as("the index gave its pages back").isTrue();

        // Three pages hold last_reserved_ip.0 and two reservations: the disk is full now.
        CniError full = call("ADD", "c3", data).error();
        assertThat(full.code()).isEqualTo(CniError.IO_FAILURE);
        assertThat(full.msg()).startsWith("host-local store " + data.resolve("net1") + ": No space left on device")
                .doesNotContain("java.");
        assertThat(reserved(data)).as("the failed ADD left no reservation").containsExactly("10.1.0.2", "10.1.0.3");

        call("DEL", "c1", data).ok();
        assertThat(reserved(data)).containsExactly("10.1.0.3");
        Result third = (Result) call("ADD", "c3", data).result();
        assertThat(third.ips().getFirst().address().toString()).isEqualTo("10.1.0.4/24");
        call("DEL", "c2", data).ok();
        call("DEL", "c3", data).ok();
        call("DEL", "c3", data).ok();
        assertThat(reserved(data)).isEmpty();
    }

    @Test
    void anAddWhoseIndexCannotGrowOnAFullDiskSucceedsAndLaterDelsRelease() throws Exception {
        Path data = tinyDisk(16);
        call("ADD", "c1", data).ok();
        long indexBytes = Files.size(data.resolve(".jcni/net1.index"));
        assertThat(indexBytes).as("the index was written while there was room").isPositive();
        // An attachment whose table slot lies on a page of the (sparse) index that has no storage yet, so that
        // committing it needs a new page: the table starts at page 2 (header, one bitmap page for a /24), 1024
        // slots of 32 bytes, 128 to a page; page 9 holds the file's last byte.
        String second = attachmentOnAnUnwrittenTablePage("c1");
        fillUpLeavingPages(1);

        Result result = (Result) call("ADD", second, data).result();

        assertThat(result.ips().getFirst().address().toString()).isEqualTo("10.1.0.3/24");
        assertThat(reserved(data)).containsExactly("10.1.0.2", "10.1.0.3");
        call("DEL", "c1", data).ok();
        call("DEL", second, data).ok();
        assertThat(reserved(data)).isEmpty();
    }

    /** A container ID whose index slot (for eth0) is on another table page than {@code taken}'s and the last one. */
    private static String attachmentOnAnUnwrittenTablePage(String taken) {
        int takenPage = tablePage(taken);
        for (int i = 0; ; i++) {
            String id = "c2-" + i;
            int page = tablePage(id);
            if (page != takenPage && page != 7) {
                return id;
            }
        }
    }

    /** StoreIndex's home slot of (id, eth0) in a table of 1024 slots, as a page of the table (0..7). */
    private static int tablePage(String id) {
        long key = StoreIndex.key(id, "eth0");
        int home = (int) (key ^ (key >>> 32)) & 1023;
        return home / 128;
    }

    /** Fills the tmpfs with one-page files, then removes {@code pages} of them. */
    private void fillUpLeavingPages(int pages) throws IOException {
        Path filler = Files.createDirectories(mount.resolve("filler"));
        int written = 0;
        while (true) {
            Path file = filler.resolve(Integer.toString(written));
            try {
                Files.write(file, new byte[4096]);
            } catch (IOException full) {
                Files.deleteIfExists(file);
                break;
            }
            written++;
        }
        for (int i = 0; i < pages; i++) {
            Files.delete(filler.resolve(Integer.toString(--written)));
        }
    }

    @Test
    void aFailureAfterTheReservationFileWasCreatedRemovesIt() throws Exception {
        Path data = tinyDisk(4);
        fillUpLeavingPages(1);

        // The reservation file takes the last page; creating last_reserved_ip.0 then fails.
        CniError full = call("ADD", "c1", data).error();

        assertThat(full.code()).isEqualTo(CniError.IO_FAILURE);
        assertThat(full.msg()).contains("No space left on device").doesNotContain("java.");
        assertThat(reserved(data)).isEmpty();
    }

    @Test
    void stateWrittenByGosHostLocalOnAFullDiskIsReleasedAndAllocatedAroundByJcni() throws Exception {
        assumeTrue(GoHostLocal.available(), "Debian's Go host-local is not installed");
        Path data = tinyDisk(3);
        GoHostLocal go = new GoHostLocal(data, RANGES);

        assertThat(go.add("go-1", "eth0").addresses()).containsExactly("10.1.0.2");
        Result ours = (Result) call("ADD", "jcni-1", data).result();
        assertThat(ours.ips().getFirst().address().toString()).as("after Go's last_reserved_ip")
                .isEqualTo("10.1.0.3/24");
        assertThat(call("ADD", "jcni-2", data).error().code()).isEqualTo(CniError.IO_FAILURE);

        call("DEL", "go-1", data).ok();
        assertThat(reserved(data)).containsExactly("10.1.0.3");
        assertThat(go.add("go-2", "eth0").addresses()).as("Go allocates in the space jcni released")
                .containsExactly("10.1.0.4");
        assertThat(go.del("jcni-1", "eth0").succeeded()).isTrue();
        call("DEL", "go-2", data).ok();
        assertThat(reserved(data)).isEmpty();
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).inheritIO().start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    private static boolean root() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return line.split("\\s+")[2].equals("0");
            }
        }
        return false;
    }
}
