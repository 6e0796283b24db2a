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
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * nftables transaction cost per rule, in process, against the kernel: one transaction (one {@code sendto}, the
 * kernel's batch, one acknowledgement per rule) adding 1, 8 or 64 portmap-style rules
 * ({@code tcp dport P dnat to 10.88.0.5:80 comment "ctr-..."}) to a chain; scores are per rule. {@link #portmapAdd}
 * is a whole IPv4 portmap ADD as the plugin sends it (its layout: {@code meta.portmap.HostportTable}): table, six
 * chains, three flushes, the jump rules and two mappings with their masquerade rules (19 messages) in one transaction;
 * its score is per transaction. The Go portmap plugin
 * execs {@code iptables} 20-50 times for the same work.
 *
 * <p>Sample time, not average: on a shared 2-core machine a few preempted commits (milliseconds each) dominate an
 * average of sub-millisecond operations; read the p50 (and p90) lines.
 *
 * <p>Everything happens in an anonymous namespace ({@code NetNs.create()}) that disappears with the trial; the chain
 * is flushed (or the table deleted) after every invocation, untimed. Needs root.
 *
 * <p>{@code java -jar benchmarks/target/benchmarks.jar NftablesBenchmark -f 1 -wi 2 -i 3}
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class NftablesBenchmark {
    static final TableFamily IP = TableFamily.IP;
    static final String TABLE = "bench";
    static final String CHAIN = "hostports";

    static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A namespace with table {@value #TABLE} and chain {@value #CHAIN}, and 64 rules ready to add. */
    @State(Scope.Thread)
    public static class Rules {
        NetNs ns;
        NftablesHandle nft;
        final List<Rule> rules = new ArrayList<>();

        @Setup(Level.Trial)
        public void create() {
            ns = NetNs.create();
            nft = Nftables.open(ns);
            Transaction tx = nft.transaction();
            tx.addTable(new Table(IP, TABLE, "jcni benchmark"));
            tx.addChain(Chain.regular(IP, TABLE, CHAIN));
            tx.commit();
            InetAddress container = ip("10.88.0.5");
            for (int i = 0; i < 64; i++) {
                rules.add(Rule.of(IP, TABLE, CHAIN, Exprs.in(IP).dport(Exprs.TCP, 8000 + i).dnat(container, 80)
                        .toList(), "ctr-" + i));
            }
        }

        @TearDown(Level.Invocation)
        public void flush() {
            Transaction tx = nft.transaction();
            tx.flushChain(IP, TABLE, CHAIN);
            tx.commit();
        }

        @TearDown(Level.Trial)
        public void remove() {
            nft.close();
            ns.close();
        }

        void add(int count) {
            Transaction tx = nft.transaction();
            for (int i = 0; i < count; i++) {
                tx.addRule(rules.get(i));
            }
            tx.commit();
        }
    }

    @Benchmark
    @OperationsPerInvocation(1)
    public void transaction1Rule(Rules s) {
        s.add(1);
    }

    @Benchmark
    @OperationsPerInvocation(8)
    public void transaction8Rules(Rules s) {
        s.add(8);
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public void transaction64Rules(Rules s) {
        s.add(64);
    }

    /** A namespace in which {@link #portmapAdd} builds the portmap table; deleted after each invocation. */
    @State(Scope.Thread)
    public static class Portmap {
        NetNs ns;
        NftablesHandle nft;

        @Setup(Level.Trial)
        public void create() {
            ns = NetNs.create();
            nft = Nftables.open(ns);
        }

        @TearDown(Level.Invocation)
        public void delete() {
            Transaction tx = nft.transaction();
            tx.deleteTable(IP, "cni_hostport");
            tx.commit();
        }

        @TearDown(Level.Trial)
        public void remove() {
            nft.close();
            ns.close();
        }
    }

    /** One portmap ADD (two mappings, snat on) as one transaction of 19 messages. */
    @Benchmark
    public void portmapAdd(Portmap s) {
        String t = "cni_hostport";
        String id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        InetAddress container = ip("10.88.0.5");
        Transaction tx = s.nft.transaction();
        tx.addTable(new Table(IP, t, "CNI portmap plugin"));
        tx.addChain(Chain.regular(IP, t, "hostports"));
        tx.addChain(Chain.regular(IP, t, "hostip_hostports"));
        tx.addChain(Chain.regular(IP, t, "hostports_all"));
        tx.flushChain(IP, t, "hostports_all");
        tx.addRule(Rule.of(IP, t, "hostports_all", Exprs.in(IP).jump("hostip_hostports").toList(), null));
        tx.addRule(Rule.of(IP, t, "hostports_all", Exprs.in(IP).jump("hostports").toList(), null));
        tx.addChain(Chain.base(IP, t, "prerouting_after_dstnat", Chain.Type.NAT, Chain.Hook.PREROUTING,
                Chain.PRIORITY_DSTNAT + 1, Chain.Policy.ACCEPT));
        tx.flushChain(IP, t, "prerouting_after_dstnat");
        tx.addRule(Rule.of(IP, t, "prerouting_after_dstnat", Exprs.in(IP).fibDaddrType(Exprs.RTN_LOCAL)
                .jump("hostports_all").toList(), null));
        tx.addChain(Chain.base(IP, t, "output_after_dstnat", Chain.Type.NAT, Chain.Hook.OUTPUT,
                Chain.PRIORITY_DSTNAT + 1, Chain.Policy.ACCEPT));
        tx.flushChain(IP, t, "output_after_dstnat");
        tx.addRule(Rule.of(IP, t, "output_after_dstnat", Exprs.in(IP).fibDaddrType(Exprs.RTN_LOCAL)
                .jump("hostports_all").toList(), null));
        tx.addChain(Chain.base(IP, t, "masquerading", Chain.Type.NAT, Chain.Hook.POSTROUTING, Chain.PRIORITY_SRCNAT,
                Chain.Policy.ACCEPT));
        tx.addRule(Rule.of(IP, t, "hostports", Exprs.in(IP).dport(Exprs.TCP, 8080).dnat(container, 80).toList(), id));
        tx.addRule(Rule.of(IP, t, "hostports", Exprs.in(IP).dport(Exprs.UDP, 5353).dnat(container, 53).toList(), id));
        tx.addRule(Rule.of(IP, t, "masquerading", Exprs.in(IP).saddr(ip("10.88.0.0"), 16).daddr(container)
                .masquerade().toList(), id));
        tx.addRule(Rule.of(IP, t, "masquerading", Exprs.in(IP).saddr(ip("127.0.0.1")).daddr(container).masquerade()
                .toList(), id));
        tx.commit();
    }
}
