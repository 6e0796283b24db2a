package io.jcni.plugins.internal.launcher;

import io.jcni.netlink.NetNs;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.runtime.JcniLaunchers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

/**
 * The AOT training of the interface plugins (bridge, ptp, tap) and of the meta plugins chained after them (firewall,
 * bandwidth, sbr, vrf): their real ADD, CHECK and DEL, so that the cache holds their classes and the netlink paths
 * they use (veth, bridge and TAP creation, batches, routes, rules, tc, sysctls in another namespace, in-process IPAM
 * delegation, nf_tables transactions for ipMasq, macspoofchk and firewall). {@link #runBridge} runs bridge's scenarios
 * alone, for the cache of bridge's own AOT group.
 *
 * <p>Nothing touches the build host: the whole run happens on a thread inside a fresh anonymous namespace that stands
 * in for the host (a plugin's "host" is the namespace of the thread it runs on), with a second one as the container.
 * Both vanish when the training ends. IPAM is jcni's static plugin, delegated to in-process through a launcher marker
 * file in the work dir (host-local too, once the image ships it). Root only, like all namespace work.
 */
final class InterfaceTraining implements NetNs.Task<Void, IOException> {
    private final Path work;
    private final String containerPath;
    private final AotTraining training;
    private final boolean bridgeOnly;

    private InterfaceTraining(Path work, String containerPath, AotTraining training, boolean bridgeOnly) {
        this.work = work;
        this.containerPath = containerPath;
        this.training = training;
        this.bridgeOnly = bridgeOnly;
    }

    /** Runs every scenario; their calls and failures are {@code training}'s. */
    static void run(Path work, AotTraining training) throws IOException {
        run(work, training, false);
    }

    /** Runs bridge's scenarios only (the cache of its own AOT group). */
    static void runBridge(Path work, AotTraining training) throws IOException {
        run(work, training, true);
    }

    private static void run(Path work, AotTraining training, boolean bridgeOnly) throws IOException {
        try (NetNs host = NetNs.create(); NetNs container = NetNs.create()) {
            host.call(new InterfaceTraining(work, container.path().toString(), training, bridgeOnly));
        }
    }

    @Override
    public Void run() throws IOException {
        Path bin = Files.createDirectories(work.resolve("interface-bin"));
        for (String ipam : new String[] {"static", "host-local"}) {
            if (PluginRegistry.skel(ipam) != null) {
                Path launcher = bin.resolve(ipam);
                Files.writeString(launcher, "#!/bin/sh\n" + JcniLaunchers.markerLine(ipam) + "\nexit 1\n");
                Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
        String ipam = "{\"type\":\"static\",\"addresses\":[{\"address\":\"10.99.1.5/24\",\"gateway\":\"10.99.1.1\"},"
                + "{\"address\":\"fd99:1::5/64\",\"gateway\":\"fd99:1::1\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}";
        if (PluginRegistry.skel("host-local") != null) {
            ipam = "{\"type\":\"host-local\",\"dataDir\":\"" + work.resolve("interface-ipam") + "\",\"ranges\":["
                    + "[{\"subnet\":\"10.99.1.0/24\"}],[{\"subnet\":\"fd99:1::/64\"}]],\"routes\":[{\"dst\":"
                    + "\"0.0.0.0/0\"}]}";
        }
        String bridge = "{\"cniVersion\":\"1.0.0\",\"name\":\"aot-br\",\"type\":\"bridge\",\"bridge\":\"aot-br0\","
                + "\"isDefaultGateway\":true,\"mtu\":1400,\"ipam\":" + ipam + "}";
        cycle("bridge", bridge, bin, "eth0");
        cycle("bridge", bridge, bin, "eth1");
        String layer2 = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-l2\",\"type\":\"bridge\",\"bridge\":\"aot-br1\","
                + "\"portIsolation\":true}";
        cycle("bridge", layer2, bin, "eth2");
        bridgeNetfilter(bin, ipam);
        if (!bridgeOnly) {
            String ptp = "{\"cniVersion\":\"1.0.0\",\"name\":\"aot-ptp\",\"type\":\"ptp\",\"ipam\":" + ipam + "}";
            cycle("ptp", ptp, bin, "eth3");
            portmap(bin);
            netfilter(bin, ipam);
        }
        // An IPAM plugin that is not jcni's is exec'd: train that path too (process start, pipes, the JDK's logging of
        // process starts), with a script standing in for it.
        Path foreign = bin.resolve("aot-exec-ipam");
        Files.writeString(foreign, "#!/bin/sh\ncat >/dev/null\n[ \"$CNI_COMMAND\" = ADD ] || exit 0\n"
                + "echo '{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.99.2.5/24\",\"gateway\":\"10.99.2.1\"}]}'\n");
        Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwxr-xr-x"));
        cycle("bridge", "{\"cniVersion\":\"1.0.0\",\"name\":\"aot-ex\",\"type\":\"bridge\",\"bridge\":\"aot-br2\","
                + "\"isGateway\":true,\"ipam\":{\"type\":\"aot-exec-ipam\"}}", bin, "eth5");
        if (bridgeOnly) {
            return null;
        }
        chained(bin);
        tap(bin);
        vrf(bin);
        return null;
    }

    /**
     * portmap behind a bridge with a known address (static IPAM): ADD (nftables transaction, route get and
     * route_localnet in the host), CHECK, GC, STATUS, DEL twice, and a refused configuration.
     */
    private void portmap(Path bin) {
        String bridge = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-pm\",\"type\":\"bridge\",\"bridge\":\"aot-br4\","
                + "\"isGateway\":true,\"ipam\":{\"type\":\"static\",\"addresses\":[{\"address\":\"10.99.3.5/24\","
                + "\"gateway\":\"10.99.3.1\"},{\"address\":\"fd99:3::5/64\"}]}}";
        training.call("bridge", env("ADD", bin, "eth8"), bridge, 0);
        String portmap = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-pm\",\"type\":\"portmap\","
                + "\"conditionsV4\":[\"iifname != \\\"aot-x\\\"\"],\"runtimeConfig\":{\"portMappings\":["
                + "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"},"
                + "{\"hostPort\":5353,\"containerPort\":53,\"protocol\":\"UDP\",\"hostIP\":\"10.99.3.1\"},"
                + "{\"hostPort\":8443,\"containerPort\":443,\"protocol\":\"sctp\",\"hostIP\":\"::\"}]}";
        String prev = ",\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth8\",\"sandbox\":\""
                + containerPath + "\"}],\"ips\":[{\"interface\":0,\"address\":\"10.99.3.5/24\"},"
                + "{\"interface\":0,\"address\":\"fd99:3::5/64\"}]}";
        training.call("portmap", env("ADD", bin, "eth8"), portmap + prev + "}", 0);
        training.call("portmap", env("CHECK", bin, "eth8"), portmap + prev + "}", 0);
        training.call("portmap", env("GC", bin, ""), portmap + ",\"cni.dev/valid-attachments\":[{\"containerID\":"
                + "\"jcni-aot-training\",\"ifname\":\"eth8\"}]}", 0);
        training.call("portmap", env("STATUS", bin, ""), portmap + "}", 0);
        training.call("portmap", env("DEL", bin, "eth8"), portmap + "}", 0);
        training.call("portmap", env("DEL", bin, "eth8"), portmap + "}", 0);
        training.call("portmap", env("ADD", bin, "eth8"), "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-pm\","
                + "\"type\":\"portmap\",\"runtimeConfig\":{\"portMappings\":[{\"hostPort\":0,\"containerPort\":80,"
                + "\"protocol\":\"tcp\"}]}" + prev + "}", 1);
        training.call("bridge", env("DEL", bin, "eth8"), bridge, 0);
    }

    /** bridge's nf_tables paths: ipMasq, macspoofchk and hairpin (ADD, DEL twice), GC and STATUS. */
    private void bridgeNetfilter(Path bin, String ipam) {
        String bridge = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-masq\",\"type\":\"bridge\",\"bridge\":"
                + "\"aot-br3\",\"isGateway\":true,\"ipMasq\":true,\"macspoofchk\":true,\"hairpinMode\":true,"
                + "\"ipam\":" + ipam + "}";
        cycle("bridge", bridge, bin, "eth4");
        training.call("bridge", env("GC", bin, "eth4"), bridge.substring(0, bridge.length() - 1)
                + ",\"cni.dev/valid-attachments\":[]}", 0);
        training.call("bridge", env("STATUS", bin, "eth4"), bridge, 0);
    }

    /**
     * The other nf_tables paths: ptp with ipMasq (ADD, DEL twice), a refused backend; the firewall plugin's ADD, CHECK,
     * DEL, GC and STATUS with an isolating policy, and its missing-prevResult error.
     */
    private void netfilter(Path bin, String ipam) {
        String ptp = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-ptp-masq\",\"type\":\"ptp\",\"ipMasq\":true,"
                + "\"ipMasqBackend\":\"nftables\",\"ipam\":" + ipam + "}";
        cycle("ptp", ptp, bin, "eth6");
        training.call("ptp", env("ADD", bin, "eth7"), "{\"cniVersion\":\"1.0.0\",\"name\":\"aot-ptp\","
                + "\"type\":\"ptp\",\"ipMasq\":true,\"ipMasqBackend\":\"none\",\"ipam\":" + ipam + "}", 1);
        String previous = "\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"aot-br3\"},"
                + "{\"name\":\"eth0\",\"sandbox\":\"" + containerPath + "\"}],\"ips\":[{\"address\":"
                + "\"10.99.3.5/24\",\"interface\":1},{\"address\":\"fd99:3::5/64\",\"interface\":1}]}";
        String firewall = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-fw\",\"type\":\"firewall\",\"backend\":\"\","
                + "\"ingressPolicy\":\"same-bridge\",";
        training.call("firewall", env("ADD", bin, "eth0"), firewall + previous + "}", 0);
        training.call("firewall", env("CHECK", bin, "eth0"), firewall + previous + "}", 0);
        training.call("firewall", env("DEL", bin, "eth0"), firewall + previous + "}", 0);
        training.call("firewall", env("DEL", bin, "eth0"), firewall + previous + "}", 0);
        training.call("firewall", env("GC", bin, "eth0"), firewall + "\"cni.dev/valid-attachments\":[]}", 0);
        training.call("firewall", env("STATUS", bin, "eth0"), firewall + "\"x\":0}", 0);
        training.call("firewall", env("ADD", bin, "eth0"), firewall + "\"x\":0}", 1);
    }

    /**
     * The meta plugins after a bridge, as a conflist runs them: bandwidth (ADD, CHECK, DEL twice, GC, STATUS, a refused
     * configuration), sbr with and without {@code table} (ADD, CHECK, DEL), each given the previous plugin's result.
     */
    private void chained(Path bin) {
        String bridge = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-chain\",\"type\":\"bridge\",\"bridge\":"
                + "\"aot-br5\",\"isDefaultGateway\":true,\"ipam\":{\"type\":\"static\",\"addresses\":[{\"address\":"
                + "\"10.99.3.5/24\",\"gateway\":\"10.99.3.1\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}";
        String bridged = training.call("bridge", env("ADD", bin, "eth9"), bridge, 0);
        String bandwidth = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-chain\",\"type\":\"bandwidth\","
                + "\"ingressRate\":8000000,\"ingressBurst\":80000,\"egressRate\":8000000,\"egressBurst\":80000}";
        String shaped = training.call("bandwidth", env("ADD", bin, "eth9"), withPrev(bandwidth, bridged), 0);
        training.call("bandwidth", env("CHECK", bin, "eth9"), withPrev(bandwidth, shaped), 0);
        String sbr = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-chain\",\"type\":\"sbr\"}";
        training.call("sbr", env("ADD", bin, "eth9"), withPrev(sbr, shaped), 0);
        training.call("sbr", env("CHECK", bin, "eth9"), withPrev(sbr, shaped), 0);
        training.call("sbr", env("DEL", bin, "eth9"), withPrev(sbr, shaped), 0);
        String sbrTable = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-chain\",\"type\":\"sbr\",\"table\":300}";
        training.call("sbr", env("ADD", bin, "eth9"), withPrev(sbrTable, shaped), 0);
        training.call("sbr", env("DEL", bin, "eth9"), withPrev(sbrTable, shaped), 0);
        training.call("bandwidth", env("DEL", bin, "eth9"), withPrev(bandwidth, shaped), 0);
        training.call("bandwidth", env("DEL", bin, "eth9"), withPrev(bandwidth, shaped), 0);
        training.call("bandwidth", env("GC", bin, ""), bandwidth.substring(0, bandwidth.length() - 1)
                + ",\"cni.dev/valid-attachments\":[]}", 0);
        training.call("bandwidth", env("STATUS", bin, ""), bandwidth, 0);
        training.call("bandwidth", env("ADD", bin, "eth9"), withPrev(bandwidth.replace("8000000,\"ingressBurst",
                "-1,\"ingressBurst"), bridged), 1);
        training.call("bridge", env("DEL", bin, "eth9"), bridge, 0);
    }

    /** tap in the container: layer 2 with Go's netlink flags (ADD, CHECK, DEL twice), with IPAM, a refused mode. */
    private void tap(Path bin) {
        String layer2 = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-tap\",\"type\":\"tap\",\"mtu\":1400,"
                + "\"mac\":\"02:00:00:aa:bb:cc\",\"multiQueue\":true,\"owner\":0,\"group\":0}";
        String added = training.call("tap", env("ADD", bin, "tap7"), layer2, 0);
        training.call("tap", env("CHECK", bin, "tap7"), withPrev(layer2, added), 0);
        training.call("tap", env("DEL", bin, "tap7"), layer2, 0);
        training.call("tap", env("DEL", bin, "tap7"), layer2, 0);
        cycle("tap", "{\"cniVersion\":\"1.0.0\",\"name\":\"aot-tap\",\"type\":\"tap\",\"ipam\":{\"type\":"
                + "\"static\",\"addresses\":[{\"address\":\"10.99.4.5/24\",\"gateway\":\"10.99.4.1\"}]}}", bin, "tap8");
        training.call("tap", env("ADD", bin, "tap9"), "{\"cniVersion\":\"1.0.0\",\"name\":\"aot-tap\","
                + "\"type\":\"tap\",\"mode\":\"tun\"}", 1);
    }

    /** vrf: ADD and STATUS answer by the kernel (code 50 without CONFIG_NET_VRF), DEL either way. */
    private void vrf(Path bin) {
        String vrf = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-vrf\",\"type\":\"vrf\",\"vrfname\":\"aot-vrf0\","
                + "\"prevResult\":{\"cniVersion\":\"1.1.0\"}}";
        String tap = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot-vrf\",\"type\":\"tap\"}";
        training.call("tap", env("ADD", bin, "vrf1"), tap, 0);
        training.call("vrf", env("ADD", bin, "vrf1"), vrf, AotTraining.ANY_STATUS);
        training.call("vrf", env("CHECK", bin, "vrf1"), vrf, AotTraining.ANY_STATUS);
        training.call("vrf", env("STATUS", bin, ""), vrf, AotTraining.ANY_STATUS);
        training.call("vrf", env("DEL", bin, "vrf1"), vrf, 0);
        training.call("tap", env("DEL", bin, "vrf1"), tap, 0);
    }

    /** {@code conf} (a JSON object) with {@code prevResult} set to {@code result}. */
    private static String withPrev(String conf, String result) {
        return conf.substring(0, conf.length() - 1) + ",\"prevResult\":" + result.strip() + "}";
    }

    private void cycle(String type, String conf, Path bin, String ifName) {
        training.call(type, env("ADD", bin, ifName), conf, 0);
        training.call(type, env("DEL", bin, ifName), conf, 0);
        training.call(type, env("DEL", bin, ifName), conf, 0);
    }

    private Map<String, String> env(String command, Path bin, String ifName) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", "jcni-aot-training");
        env.put("CNI_NETNS", containerPath);
        env.put("CNI_IFNAME", ifName);
        env.put("CNI_PATH", bin.toString());
        return env;
    }
}
