package io.jcni.it.leaks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.Processes;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.Traffic;
import io.jcni.it.teardown.NodeState;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code jcni gc --stale} removes exactly the attachments that are dead, over random mixes of live and dead ones of
 * every plugin type this kernel runs, with Go's plugins and with jcni's.
 *
 * <p>Each round attaches a sandbox to every network, in a random order, and up to two more to random networks: bridge
 * with ipMasq → portmap → firewall → tuning → bandwidth; ptp with ipMasq (→ sbr, jcni's: Go's sbr fails a DEL
 * without namespace, see {@code DelWithoutNetnsTest}); macvlan with static IPAM from the {@code ips} capability;
 * loopback; tap, jcni's only. Each through jcni's runtime or Go libcni at random (so the cache holds entries with a
 * {@code netns} and libcni 1.1.2's, which have none), in a named namespace or a process's ({@code /proc/PID/ns/net}).
 * Then each gets a random fate: left alone; its namespace deleted; unmounted with a plain file left; its process
 * killed; or (bridge and ptp) its file deleted while a process still holds it. {@code gc --stale --dry-run} must list
 * exactly the dead ones and change nothing; {@code gc --stale} must remove exactly them, keep the others with the
 * right reason, and leave every live attachment whole: its cache entry, reservation, rules, host end, ifb and tuning
 * backup, and its traffic (real TCP from the node or its LAN peer, and through its published port from another
 * namespace). Then the live ones are deleted and the node must read back as it did before the round: nothing of the
 * dead ones may remain (Go's plugins: but what Go's own DEL without a namespace leaves, its masquerade chain and
 * tuning backup, asserted exactly).
 *
 * <p>jcni's networks declare {@code "cniVersions": ["1.0.0", "1.1.0"]}: Go libcni 1.1.2 runs them as 1.0.0 and
 * jcni's runtime as 1.1.0, so gc --stale also runs every plugin's GC with the live attachments as valid, which must
 * spare them. The seed is printed; {@code -Djcni.it.mixSeed=N} replays one, {@code -Djcni.it.mixRounds=N} sets the
 * rounds (default 3).
 */
class GcStaleMixTest {
    static final String TAG = "mix";

    @TempDir
    Path tmp;

    enum Side {
        GO, JCNI
    }

    enum Fate {
        LIVE, LIVE_PROC, HELD, DEAD, DEAD_UNMOUNTED, DEAD_PROC;

        boolean dead() {
            return this == DEAD || this == DEAD_UNMOUNTED || this == DEAD_PROC;
        }
    }

    /** A network of the mix: its name, kind and configuration. */
    record Net(String name, String kind, NetworkConfigList list, Path conf) {
        boolean hasHostEnd() {
            return kind.equals("br") || kind.equals("pp");
        }
    }

    /** One sandbox attached to one network. */
    final class Mixed {
        final Net net;
        final String id;
        final String ifName;
        final boolean libcni;
        final int hostPort;
        final String staticIp;
        TestNetns named;
        Process process;
        Path path;
        Path reach;
        JsonNode result;
        Fate fate;

        Mixed(Net net, String id, boolean libcni, int hostPort, String staticIp) {
            this.net = net;
            this.id = id;
            this.ifName = net.kind().equals("lo") ? "lo" : "eth0";
            this.libcni = libcni;
            this.hostPort = hostPort;
            this.staticIp = staticIp;
        }

        String capabilityArgs() {
            return switch (net.kind()) {
                case "br" -> "{\"portMappings\":[{\"hostPort\":" + hostPort + ",\"containerPort\":80,"
                        + "\"protocol\":\"tcp\"}]}";
                case "mv" -> "{\"ips\":[\"" + staticIp + "/24\"]}";
                default -> null;
            };
        }

        String ip() {
            return net.kind().equals("lo") ? "" : StaleNode.ip(result);
        }

        String cacheEntry() {
            return net.name() + "-" + id + "-" + ifName;
        }

        @Override
        public String toString() {
            return id + " on " + net.name() + " (" + (libcni ? "Go libcni" : "jcni's runtime") + ", "
                    + (process != null ? "process" : "named") + " namespace, " + fate + ")";
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Side.class)
    void gcStaleRemovesExactlyTheDeadAttachments(Side side) throws Exception {
        long seed = Long.getLong("jcni.it.mixSeed", System.nanoTime());
        int rounds = Integer.getInteger("jcni.it.mixRounds", 3);
        System.out.println("GcStaleMixTest " + side + ": seed " + seed + " (-Djcni.it.mixSeed=" + seed + ")");
        Random random = new Random(seed);
        Prerequisites.assumeGoTools();
        List<Path> cniPath = side == Side.JCNI ? List.of(Locations.distCniBin())
                : List.of(Locations.referencePlugins());
        try (StaleNode node = StaleNode.start(TAG, tmp.resolve(side.name().toLowerCase()), cniPath)) {
            List<Net> nets = networks(node, side);
            NodeState baseline = probe(node, nets);
            List<Mixed> deadSoFar = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                String context = side + " seed " + seed + " round " + round;
                List<Mixed> mix = attach(node, nets, random, round);
                assignFates(mix, random);
                System.out.println(context + ": " + mix);
                for (Mixed m : mix) {
                    assertWhole(node, m, side, context + " before: " + m);
                }
                applyFates(node, mix);

                List<String> dry = node.gcStale("--dry-run");
                assertThat(lines(dry, "would remove")).as(context + " dry run\n" + String.join("\n", dry))
                        .containsExactlyInAnyOrderElementsOf(ids(mix, true));
                assertThat(node.cacheEntries()).as(context + ": the dry run changed nothing")
                        .containsAll(mix.stream().map(Mixed::cacheEntry).toList());

                List<String> report = node.gcStale();
                String said = context + "\n" + String.join("\n", report);
                assertThat(lines(report, "removed")).as(said).containsExactlyInAnyOrderElementsOf(ids(mix, true));
                assertThat(lines(report, "kept")).as(said).containsAll(ids(mix, false));
                assertThat(report).as(said).noneMatch(l -> l.startsWith("failed"));
                for (Mixed m : mix) {
                    assertReason(report, m, said);
                }
                if (side == Side.JCNI) {
                    for (Net net : nets) {
                        assertThat(report).as(said).anyMatch(l -> l.startsWith("gc " + net.name() + ": collected, "));
                    }
                }
                for (Mixed m : mix) {
                    if (m.fate.dead()) {
                        assertGone(node, m, side, said + "\n" + m);
                        deadSoFar.add(m);
                    } else {
                        assertWhole(node, m, side, said + "\n" + m);
                    }
                }

                detachLive(node, mix);
                NodeState after = NodeState.read(node.host, node.ipamDir, node.tuningDir, node.cacheDir);
                assertThat(baseline.addedIn(after)).as(context + ": what the round left on the node")
                        .allMatch(goLeftover(side, deadSoFar, node));
                assertThat(baseline.removedIn(after)).as(context + ": what the round took from the node").isEmpty();
            }
            if (side == Side.GO && !deadSoFar.isEmpty()) {
                // The control: Go's DEL without a namespace leaves the masquerade chain of a bridge or ptp attachment.
                NodeState after = NodeState.read(node.host, node.ipamDir, node.tuningDir, node.cacheDir);
                boolean anyMasq = deadSoFar.stream().anyMatch(m -> m.net.hasHostEnd());
                if (anyMasq) {
                    assertThat(baseline.addedIn(after)).as("Go's masquerade leftovers are seen").isNotEmpty();
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ the networks

    List<Net> networks(StaleNode node, Side side) throws Exception {
        String version = side == Side.JCNI ? "\"cniVersion\":\"1.0.0\",\"cniVersions\":[\"1.0.0\",\"1.1.0\"]"
                : "\"cniVersion\":\"1.0.0\"";
        Map<String, String> plugins = new LinkedHashMap<>();
        plugins.put("br", bridgeChain(node));
        plugins.put("pp", "{\"type\":\"ptp\",\"ipMasq\":true,\"ipam\":" + hostLocal(node, "10.232.2.0/24") + "}"
                + (side == Side.JCNI ? ",{\"type\":\"sbr\"}" : ""));
        plugins.put("mv", "{\"type\":\"macvlan\",\"master\":\"mx0\",\"mode\":\"bridge\",\"capabilities\":{\"ips\":"
                + "true},\"ipam\":{\"type\":\"static\"}}");
        plugins.put("lo", "{\"type\":\"loopback\"}");
        if (side == Side.JCNI) {
            plugins.put("tp", "{\"type\":\"tap\",\"ipam\":" + hostLocal(node, "10.232.4.0/24") + "}");
        }
        List<Net> nets = new ArrayList<>();
        for (Map.Entry<String, String> p : plugins.entrySet()) {
            String name = "mix-" + p.getKey();
            String conflist = "{" + version + ",\"name\":\"" + name + "\",\"plugins\":[" + p.getValue() + "]}";
            Path conf = node.network(name, conflist);
            nets.add(new Net(name, p.getKey(), CniJson.decodeNetworkConfigList(conflist.getBytes(
                    StandardCharsets.UTF_8)), conf));
        }
        return nets;
    }

    static String hostLocal(StaleNode node, String subnet) {
        return "{\"type\":\"host-local\",\"dataDir\":\"" + node.ipamDir + "\",\"ranges\":[[{\"subnet\":\"" + subnet
                + "\"}]],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}";
    }

    static String bridgeChain(StaleNode node) {
        return "{\"type\":\"bridge\",\"bridge\":\"" + StaleNode.link(TAG) + "\",\"isGateway\":true,\"ipMasq\":true,"
                + "\"ipam\":" + hostLocal(node, "10.232.1.0/24") + "},"
                + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}},"
                + "{\"type\":\"firewall\"},"
                + "{\"type\":\"tuning\",\"mtu\":1400,\"dataDir\":\"" + node.tuningDir + "\","
                + "\"sysctl\":{\"net.ipv4.conf.eth0.arp_filter\":\"1\"}},"
                + "{\"type\":\"bandwidth\",\"ingressRate\":800000000,\"ingressBurst\":8000000,"
                + "\"egressRate\":800000000,\"egressBurst\":8000000}";
    }

    /**
     * What the node holds once every network has been used: one attachment added and deleted on each (bridges,
     * tables, host-local's cursor files are made once and stay, as with any plugin).
     */
    NodeState probe(StaleNode node, List<Net> nets) throws Exception {
        int n = 0;
        for (Net net : nets) {
            Mixed m = new Mixed(net, "probe" + n, false, 19000 + n, "10.232.3." + (200 + n));
            n++;
            m.named = node.host.container();
            m.path = m.named.path();
            add(node, m);
            del(node, m, m.path);
            m.named.close();
        }
        return NodeState.read(node.host, node.ipamDir, node.tuningDir, node.cacheDir);
    }

    // ------------------------------------------------------------------------------------------ a round

    List<Mixed> attach(StaleNode node, List<Net> nets, Random random, int round) throws Exception {
        // Every network once, in a random order, then up to two more at random.
        List<Net> order = new ArrayList<>(nets);
        java.util.Collections.shuffle(order, random);
        int extra = random.nextInt(3);
        for (int i = 0; i < extra; i++) {
            order.add(nets.get(random.nextInt(nets.size())));
        }
        List<Mixed> mix = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            Net net = order.get(i);
            String id = "x" + round + "n" + String.format("%02d", i) + "z";
            Mixed m = new Mixed(net, id, random.nextBoolean(), 20000 + round * 100 + i,
                    "10.232.3." + (10 + round * 20 + i));
            if (random.nextInt(10) < 3) {
                m.process = node.processSandbox();
                m.path = Path.of("/proc", String.valueOf(m.process.pid()), "ns", "net");
            } else {
                m.named = node.host.container();
                m.path = m.named.path();
            }
            m.reach = m.path;
            add(node, m);
            mix.add(m);
        }
        return mix;
    }

    static void assignFates(List<Mixed> mix, Random random) {
        for (Mixed m : mix) {
            if (m.process != null) {
                m.fate = random.nextBoolean() ? Fate.LIVE_PROC : Fate.DEAD_PROC;
                continue;
            }
            int r = random.nextInt(20);
            m.fate = r < 8 ? Fate.LIVE : r < 14 ? Fate.DEAD : r < 17 ? Fate.DEAD_UNMOUNTED
                    : m.net.hasHostEnd() ? Fate.HELD : Fate.DEAD;
        }
        if (mix.stream().noneMatch(m -> m.fate.dead())) {
            Mixed first = mix.getFirst();
            first.fate = first.process != null ? Fate.DEAD_PROC : Fate.DEAD;
        }
        if (mix.stream().allMatch(m -> m.fate.dead())) {
            Mixed last = mix.getLast();
            last.fate = last.process != null ? Fate.LIVE_PROC : Fate.LIVE;
        }
    }

    void applyFates(StaleNode node, List<Mixed> mix) {
        for (Mixed m : mix) {
            switch (m.fate) {
                case LIVE, LIVE_PROC -> { }
                case HELD -> {
                    m.reach = node.hold(m.path);
                    m.named.close();
                }
                case DEAD -> m.named.close();
                case DEAD_UNMOUNTED -> Processes.check("umount", m.path.toString());
                case DEAD_PROC -> StaleNode.kill(m.process);
            }
        }
        for (Mixed m : mix) {
            if (m.fate.dead()) {
                for (String end : StaleNode.hostEnds(m.result)) {
                    node.awaitGone(end);
                }
            }
        }
    }

    void detachLive(StaleNode node, List<Mixed> mix) throws Exception {
        for (Mixed m : mix) {
            if (!m.fate.dead()) {
                del(node, m, m.reach);
            }
            if (m.process != null) {
                m.process.destroyForcibly();
            }
            if (m.named != null) {
                m.named.close();
                Files.deleteIfExists(m.path); // an unmounted one's plain file
            }
        }
    }

    // ------------------------------------------------------------------------------------------ ADD and DEL

    void add(StaleNode node, Mixed m) throws Exception {
        Attachment a = Attachment.of(m.id, m.ifName).withCapabilityArgs(m.capabilityArgs());
        if (m.libcni) {
            m.result = node.libcni.add(m.net.conf(), m.path, a).answer();
        } else {
            RuntimeConf rt = new RuntimeConf(m.id, m.path.toString(), m.ifName, CniArgs.empty(),
                    a.capabilityArgs() == null ? JsonObject.EMPTY
                            : (JsonObject) io.jcni.spec.Json.parse(a.capabilityArgs()));
            m.result = Json.parse(new String(CniJson.encode(node.runtime.addNetworkList(m.net.list(), rt)),
                    StandardCharsets.UTF_8));
        }
    }

    void del(StaleNode node, Mixed m, Path netns) throws Exception {
        Attachment a = Attachment.of(m.id, m.ifName).withCapabilityArgs(m.capabilityArgs());
        if (m.libcni) {
            assertThat(node.libcni.del(m.net.conf(), netns, a).answer()).as("DEL of " + m).isEmpty();
        } else {
            node.runtime.delNetworkList(m.net.list(), new RuntimeConf(m.id, netns.toString(), m.ifName,
                    CniArgs.empty(), a.capabilityArgs() == null ? JsonObject.EMPTY
                            : (JsonObject) io.jcni.spec.Json.parse(a.capabilityArgs())));
        }
    }

    // ------------------------------------------------------------------------------------------ what is there

    /** Every trace of a live attachment, and its traffic. */
    void assertWhole(StaleNode node, Mixed m, Side side, String context) {
        assertThat(node.cacheEntries()).as(context).contains(m.cacheEntry());
        // jcni's rules carry the attachment's comment; Go's (iptables-nft) show its address.
        String ruleset = node.ruleset();
        String mark = side == Side.JCNI ? "id: " + m.id : " " + m.ip();
        switch (m.net.kind()) {
            case "br" -> {
                assertThat(node.reservations(m.net.name())).as(context).contains(m.ip());
                assertThat(node.links("veth")).as(context).containsAll(StaleNode.hostEnds(m.result));
                assertThat(node.links("bwp")).as(context).contains(StaleNode.ifb(m.net.name(), m.id));
                assertThat(ruleset).as(context + ": its rules").contains(mark);
                assertThat(tuningFiles(node)).as(context).anyMatch(f -> f.contains(m.id));
                tcp(node.host.netns().path(), m.reach, m.ip(), context + ": from the node");
                Traffic.Seen published = Traffic.tcp(node.client.path(), m.reach,
                        InetAddress.ofLiteral(StaleNode.NODE), m.hostPort, 80);
                assertThat(published.reached()).as(context + ": through its published port " + m.hostPort).isTrue();
            }
            case "pp" -> {
                assertThat(node.reservations(m.net.name())).as(context).contains(m.ip());
                assertThat(node.links("veth")).as(context).containsAll(StaleNode.hostEnds(m.result));
                assertThat(ruleset).as(context + ": its masquerade").contains(mark);
                tcp(node.host.netns().path(), m.reach, m.ip(), context + ": from the node");
            }
            case "mv" -> tcp(node.lan.path(), m.reach, m.ip(), context + ": from its LAN peer");
            case "tp" -> assertThat(node.reservations(m.net.name())).as(context).contains(m.ip());
            default -> { }
        }
    }

    /** No trace of a dead attachment left (Go's plugins: but what Go's DEL without a namespace leaves). */
    void assertGone(StaleNode node, Mixed m, Side side, String context) {
        assertThat(node.cacheEntries()).as(context).doesNotContain(m.cacheEntry());
        assertThat(node.journals()).as(context).doesNotContain(m.cacheEntry());
        if (m.net.kind().equals("lo")) {
            return;
        }
        if (!m.net.kind().equals("mv")) {
            assertThat(node.reservations(m.net.name())).as(context).doesNotContain(m.ip());
        }
        assertThat(node.links("bwp")).as(context).doesNotContain(StaleNode.ifb(m.net.name(), m.id));
        List<String> rules = node.ruleset().lines().filter(l -> l.contains(m.id) || l.contains(" " + m.ip() + " ")
                || l.contains(" " + m.ip() + ":")).toList();
        if (side == Side.JCNI || !m.net.hasHostEnd()) {
            assertThat(rules).as(context + ": its rules").isEmpty();
            assertThat(tuningFiles(node)).as(context).noneMatch(f -> f.contains(m.id));
        } else {
            // Go's bridge and ptp return from DEL without a namespace before their masquerade teardown
            // (containernetworking/plugins#810): its chain and the jump to it stay. Nothing else may.
            assertThat(rules).as(context + ": only Go's masquerade").allMatch(l -> l.contains("masquerade")
                    || l.contains("jump " + goMasqChain(m)) || l.contains("accept") && l.contains(m.id));
        }
    }

    /** What Go's plugins leave of the dead attachments so far; nothing for jcni's. */
    Predicate<String> goLeftover(Side side, List<Mixed> dead, StaleNode node) {
        if (side == Side.JCNI) {
            return l -> false;
        }
        Set<String> chains = new TreeSet<>();
        Set<String> ids = new TreeSet<>();
        for (Mixed m : dead) {
            if (m.net.hasHostEnd()) {
                chains.add(goMasqChain(m));
                ids.add(m.id);
            }
        }
        return l -> chains.stream().anyMatch(l::contains)
                || l.startsWith("file " + node.tuningDir) && ids.stream().anyMatch(l::contains);
    }

    /** Go's masquerade chain of an attachment: {@code CNI-} and 24 hex digits of SHA-512(network + container ID). */
    static String goMasqChain(Mixed m) {
        try {
            byte[] sum = MessageDigest.getInstance("SHA-512").digest((m.net.name() + m.id)
                    .getBytes(StandardCharsets.UTF_8));
            return "CNI-" + HexFormat.of().formatHex(sum).substring(0, 24);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> tuningFiles(StaleNode node) {
        if (!Files.isDirectory(node.tuningDir)) {
            return List.of();
        }
        try (var files = Files.list(node.tuningDir)) {
            return files.map(f -> f.getFileName().toString()).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A TCP connection from {@code from} to {@code address} in {@code server}, both ways. */
    static void tcp(Path from, Path server, String address, String context) {
        int port = 30000 + (int) (Math.random() * 10000);
        Traffic.Seen seen = Traffic.tcp(from, server, InetAddress.ofLiteral(address), port, port);
        assertThat(seen.reached()).as(context).isTrue();
    }

    // ------------------------------------------------------------------------------------------ the report

    /** The {@code ID/IFNAME} of the attachments (dead or not). */
    static List<String> ids(List<Mixed> mix, boolean dead) {
        return mix.stream().filter(m -> m.fate.dead() == dead).map(m -> m.net.name() + " " + m.id + "/" + m.ifName)
                .toList();
    }

    /** {@code NETWORK ID/IFNAME} of the report's lines that start with {@code verb}, probes and others left out. */
    static List<String> lines(List<String> report, String verb) {
        List<String> found = new ArrayList<>();
        for (String line : report) {
            if (line.startsWith(verb + " ")) {
                String[] f = line.substring(verb.length() + 1).split(" ");
                if (f[1].startsWith("x")) {
                    found.add(f[0] + " " + f[1]);
                }
            }
        }
        return found;
    }

    /** The reason given for an attachment: each fate's own. */
    static void assertReason(List<String> report, Mixed m, String context) {
        String prefix = (m.fate.dead() ? "removed " : "kept ") + m.net.name() + " " + m.id + "/" + m.ifName + " ";
        String line = report.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(
                () -> new AssertionError(context + ": no line for " + m));
        String reason = switch (m.fate) {
            case LIVE -> ": a namespace";
            case LIVE_PROC -> "pids are reused: it may name another namespace now";
            case HELD -> "is still there, so a process still holds the namespace";
            case DEAD -> "no such file";
            case DEAD_UNMOUNTED -> "no longer a namespace (the bind mount is gone, a plain file is left)";
            case DEAD_PROC -> "no such process any more";
        };
        assertThat(line).as(context + "\n" + m).contains(reason);
    }
}
