package io.jcni.benchmarks.netlink;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Exprs;
import io.jcni.netlink.nft.Nftables;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one nf_tables socket per call costs (issue 25's burst): a plugin call's nftables work reduced to its shape, one
 * transaction adding an attachment's rule and one deleting it, on a {@code NETLINK_NETFILTER} socket opened for the
 * call and closed after it ({@code perCall*}) or on a socket kept from call to call ({@code kept*}), as the plugin
 * service now lends its calls ({@code pkg.ns.HostNftables}). The kernel finishes destroying what earlier commits left
 * when a netfilter socket is released (an RCU grace period), holding the namespace's commit mutex, so with
 * {@code perCall} each call waits for a grace period and, with several threads, each commit waits for the other
 * threads' closes. Four threads stand for a burst of pods' calls at once.
 *
 * <p>Everything happens in one anonymous namespace ({@code NetNs.create()}) that disappears with the trial. Needs
 * root. Sample time (read p50 and p90): {@code java -jar benchmarks/target/benchmarks.jar NftSocketBenchmark -f 1}
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class NftSocketBenchmark {
    static final TableFamily IP = TableFamily.IP;
    static final String TABLE = "bench_sockets";
    static final String CHAIN = "hostports";

    /** The namespace and its table, shared by the threads. */
    @State(Scope.Benchmark)
    public static class Node {
        NetNs ns;
        final AtomicInteger nextPort = new AtomicInteger(10000);

        @Setup(Level.Trial)
        public void create() {
            ns = NetNs.create();
            try (NftablesHandle nft = Nftables.open(ns)) {
                Transaction tx = nft.transaction();
                tx.addTable(new Table(IP, TABLE, "jcni benchmark"));
                tx.addChain(Chain.regular(IP, TABLE, CHAIN));
                tx.commit();
            }
        }

        @TearDown(Level.Trial)
        public void remove() {
            ns.close();
        }
    }

    /** One thread's call: its rule (a port of its own), and the socket it keeps for {@code kept*}. */
    @State(Scope.Thread)
    public static class Caller {
        NftablesHandle kept;
        String tag;
        int port;

        @Setup(Level.Trial)
        public void open(Node node) {
            kept = Nftables.open(node.ns);
            port = node.nextPort.getAndIncrement();
            tag = "bench-" + port;
        }

        @TearDown(Level.Trial)
        public void close() {
            kept.close();
        }
    }

    static void call(NftablesHandle nft, Caller c) throws Exception {
        InetAddress container = InetAddress.getByAddress(new byte[] {10, 88, 0, 5});
        Transaction add = nft.transaction();
        add.addRule(Rule.of(IP, TABLE, CHAIN, Exprs.in(IP).dport(Exprs.TCP, c.port).dnat(container, 80).toList(),
                c.tag));
        add.commit();
        List<Rule> rules = nft.rules(IP, TABLE, CHAIN);
        Transaction del = nft.transaction();
        for (Rule r : rules) {
            if (c.tag.equals(r.comment())) {
                del.deleteRule(IP, TABLE, CHAIN, r.handle());
            }
        }
        del.commit();
    }

    @Benchmark
    public void perCallSocket(Node node, Caller c) throws Exception {
        try (NftablesHandle nft = Nftables.open(node.ns)) {
            call(nft, c);
        }
    }

    @Benchmark
    public void keptSocket(Caller c) throws Exception {
        call(c.kept, c);
    }

    @Benchmark
    @Threads(4)
    public void perCallSocket4Threads(Node node, Caller c) throws Exception {
        perCallSocket(node, c);
    }

    @Benchmark
    @Threads(4)
    public void keptSocket4Threads(Caller c) throws Exception {
        keptSocket(c);
    }
}
