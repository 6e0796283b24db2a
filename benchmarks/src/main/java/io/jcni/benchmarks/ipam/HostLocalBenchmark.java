package io.jcni.benchmarks.ipam;

import io.jcni.plugins.internal.ipam.hostlocal.HostLocalStore;
import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import io.jcni.spec.CniException;
import io.jcni.spec.IpPrefix;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * host-local allocation on a /16 filled to {@code fill} percent with randomly scattered reservations (a fragmented
 * range), on tmpfs ({@code /dev/shm}) or on disk ({@code java.io.tmpdir}), with a store opened per operation as a
 * plugin exec does ({@code cold}: includes opening the lock, index and directory) or kept open ({@code warm}).
 *
 * <ul>
 *   <li>{@code allocate}: find a free address and persist the reservation (file, last_reserved_ip, index); the
 *       previous one is released outside the measurement so the fill stays put;</li>
 *   <li>{@code release}: DEL of an attachment holding one address (allocated outside the measurement);</li>
 *   <li>{@code allocateThenRelease}: both, as one operation;</li>
 *   <li>{@code findById}: the reservations of an attachment (CHECK), which must not grow with the fill.</li>
 * </ul>
 *
 * <p>Run (briefly): {@code java -jar benchmarks/target/benchmarks.jar HostLocalBenchmark -f 1 -wi 2 -i 3 -w 1 -r 1
 * -p fs=tmpfs}. Go's host-local reads every reservation file per ADD, so the comparable Go figure grows with the fill.
 * {@code allocate} and {@code release} fail if they measured a reuse or a release of nothing (a fixture gone wrong).
 */
// Percentiles, not just the mean: on a shared machine a few preempted operations of milliseconds dominate a mean.
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class HostLocalBenchmark {

    private static final String NETWORK = "bench";
    private static final Attachment ME = new Attachment("benchmark-container", "eth0");

    /** The data directory, filled once per trial. */
    @State(Scope.Thread)
    public static class Dir {

        @Param({"0", "50", "90", "99"})
        public int fill;

        @Param({"tmpfs", "disk"})
        public String fs;

        @Param({"cold", "warm"})
        public String store;

        Path dataDir;
        HostLocalStore warm;
        List<RangeSet> sets;
        Attachment someone;

        @Setup(Level.Trial)
        public void fill() throws IOException, IpamException, CniException {
            Path base = fs.equals("tmpfs") ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
            dataDir = Files.createTempDirectory(base, "jcni-hl-bench");
            IpPrefix subnet = IpPrefix.parse("10.20.0.0/16", "bench");
            sets = List.of(RangeSet.canonical(List.of(RangeSpec.of(subnet))));
            Path dir = Files.createDirectories(dataDir.resolve(NETWORK));
            // 10.20.0.2 .. 10.20.255.254 (10.20.0.1 is the gateway): 65533 allocatable addresses.
            List<Integer> offsets = new ArrayList<>();
            for (int i = 2; i <= 65534; i++) {
                offsets.add(i);
            }
            Collections.shuffle(offsets, new Random(1));
            int count = (int) (65533L * fill / 100);
            IpAddress network = IpAddress.of(subnet.network());
            for (int i = 0; i < count; i++) {
                Files.writeString(dir.resolve(network.plus(offsets.get(i)).toString()), "filler-" + i + "\r\neth0",
                        StandardCharsets.US_ASCII);
            }
            someone = new Attachment(count > 0 ? "filler-" + (count / 2) : "nobody", "eth0");
            warm = HostLocalStore.open(dataDir, NETWORK);
            warm.find(someone); // builds the index: the one full scan, outside the measurement
        }

        @TearDown(Level.Trial)
        public void remove() throws IOException, IpamException {
            warm.close();
            try (Stream<Path> s = Files.walk(dataDir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }

        HostLocalStore open() throws IpamException {
            return store.equals("warm") ? warm : HostLocalStore.open(dataDir, NETWORK);
        }

        void done(HostLocalStore s) throws IpamException {
            if (s != warm) {
                s.close();
            }
        }
    }

    /** For {@code allocate}: before each invocation the attachment holds nothing (released, not measured). */
    @State(Scope.Thread)
    public static class Released extends Dir {
        @Setup(Level.Invocation)
        public void release() throws IpamException {
            warm.release(ME);
        }
    }

    /** For {@code release}: before each invocation the attachment holds one address (allocated, not measured). */
    @State(Scope.Thread)
    public static class Allocated extends Dir {
        @Setup(Level.Invocation)
        public void allocate() throws IpamException {
            warm.allocate(ME, sets, List.of(), OnExisting.REUSE);
        }
    }

    @Benchmark
    public Object allocate(Released d) throws IpamException {
        HostLocalStore s = d.open();
        try {
            List<Allocation> got = s.allocate(ME, d.sets, List.of(), OnExisting.REUSE);
            if (got.getFirst().existing()) {
                throw new IllegalStateException("measured a reuse, not an allocation");
            }
            return got;
        } finally {
            d.done(s);
        }
    }

    @Benchmark
    public Object release(Allocated d) throws IpamException {
        HostLocalStore s = d.open();
        try {
            List<IpAddress> released = s.release(ME);
            if (released.isEmpty()) {
                throw new IllegalStateException("measured a release of nothing");
            }
            return released;
        } finally {
            d.done(s);
        }
    }

    @Benchmark
    public Object allocateThenRelease(Dir d) throws IpamException {
        HostLocalStore s = d.open();
        try {
            s.allocate(ME, d.sets, List.of(), OnExisting.REUSE);
            return s.release(ME);
        } finally {
            d.done(s);
        }
    }

    @Benchmark
    public Object findById(Dir d) throws IpamException {
        HostLocalStore s = d.open();
        try {
            return s.find(d.someone);
        } finally {
            d.done(s);
        }
    }
}
