package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.internal.ffm.NativeMemory;
import io.jcni.netlink.sys.FileLocks;
import io.jcni.netlink.sys.Sysctl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing leaks per call: over 100k requests on one handle, and over thousands of handle, namespace and lock
 * open/close cycles, open file descriptors and this module's native memory (arena accounting, cross-checked with
 * the JVM's native memory tracking when enabled) return to where they were.
 */
class ResourceLeakTest {

    /**
     * Open descriptors of this process, after a GC so descriptors that other code left to cleaners (e.g. pipes of
     * finished child processes) are closed before we count.
     */
    private static long openFds() {
        System.gc();
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** NMT's committed KB for category "Other" (where Unsafe/FFM allocations go), or -1 if NMT is off. */
    private static long nmtOtherKb() {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Kernel.Result r = Kernel.run(jcmd.toString(), Long.toString(ProcessHandle.current().pid()),
                "VM.native_memory", "summary");
        Matcher m = Pattern.compile("Other \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)").matcher(r.out());
        return r.exit() == 0 && m.find() ? Long.parseLong(m.group(2)) : -1;
    }

    private static InetAddress host(int i) {
        return Cidrs.ip("10.40." + (i % 200) + "." + (i % 250 + 1));
    }

    @Test
    void hundredThousandRequestsOnOneHandleKeepFdsAndNativeMemoryFlat() {
        try (TestNamespace t = TestNamespace.create()) {
            Link v0 = t.vethPair("v0", "v1");
            for (int i = 0; i < 2_000; i++) { // warm up: class loading, JIT, buffers at their working size
                t.nl.addAddress(v0.index(), host(i), 32);
                t.nl.deleteAddress(v0.index(), host(i), 32);
            }
            t.nl.links();
            nmtOtherKb(); // the first attach of jcmd opens the JVM's attach listener socket: not ours to count
            long fds = openFds();
            long bytes = NativeMemory.liveBytes();
            long arenas = NativeMemory.liveArenas();
            long nmt = nmtOtherKb();
            for (int i = 0; i < 50_000; i++) {
                t.nl.addAddress(v0.index(), host(i), 32);
                t.nl.deleteAddress(v0.index(), host(i), 32);
                if (i % 5_000 == 0) {
                    assertThat(t.nl.links()).hasSize(3);
                }
            }
            assertThat(openFds()).isEqualTo(fds);
            assertThat(NativeMemory.liveBytes()).isEqualTo(bytes);
            assertThat(NativeMemory.liveArenas()).isEqualTo(arenas);
            if (nmt >= 0) {
                assertThat(nmtOtherKb() - nmt).as("NMT 'Other' growth in KB over 100k requests").isLessThan(1024);
            }
        }
    }

    @Test
    void handlesNamespacesLocksAndSysctlsFreeEverythingOnClose(@TempDir Path dir) {
        try (TestNamespace t = TestNamespace.create()) {
            Path lock = dir.resolve("lock");
            Path nsPath = Path.of("/run/netns", t.name);
            Runnable cycle = () -> {
                try (NetlinkHandle nl = Netlink.open(t.ns)) {
                    nl.link("lo");
                }
                try (NetlinkHandle nl = Netlink.open()) {
                    nl.link("lo");
                }
                try (NetNs ns = NetNs.open(nsPath)) {
                    ns.id();
                }
                try (FileLocks.ExclusiveLock _ = FileLocks.exclusive(lock)) {
                    FileLocks.tryExclusive(lock).ifPresent(FileLocks.ExclusiveLock::close);
                }
                Sysctl.read(t.ns, "net.ipv4.ip_forward");
            };
            for (int i = 0; i < 200; i++) {
                cycle.run();
            }
            long fds = openFds();
            long bytes = NativeMemory.liveBytes();
            long arenas = NativeMemory.liveArenas();
            for (int i = 0; i < 2_000; i++) {
                cycle.run();
            }
            try (NetNs anonymous = NetNs.create(); NetlinkHandle nl = Netlink.open(anonymous)) {
                assertThat(nl.links()).hasSize(1);
                assertThat(NativeMemory.liveBytes()).isGreaterThan(bytes);
            }
            assertThat(openFds()).isEqualTo(fds);
            assertThat(NativeMemory.liveBytes()).isEqualTo(bytes);
            assertThat(NativeMemory.liveArenas()).isEqualTo(arenas);
        }
    }
}
