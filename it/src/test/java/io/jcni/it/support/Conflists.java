package io.jcni.it.support;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The network configurations tests write, as JSON text: a list around plugin objects, jcni's and Go's bridge, and
 * host-local with a data dir of the test's own (never the default /var/lib/cni/networks). Extra members are passed as
 * raw JSON starting with a comma ({@code ",\"isGateway\":true"}), so a test states exactly what it configures.
 */
public final class Conflists {
    private Conflists() {}

    /** {@code {"cniVersion":V,"name":N,"plugins":[P1,P2,...]}}. */
    public static String list(String cniVersion, String network, String... plugins) {
        return "{\"cniVersion\":\"" + cniVersion + "\",\"name\":\"" + network + "\",\"plugins\":["
                + String.join(",", plugins) + "]}";
    }

    /** {@code {"type":"bridge","bridge":NAME<keys>,"ipam":IPAM}}; {@code ipam} null for a layer-2 only bridge. */
    public static String bridge(String bridge, String keys, String ipam) {
        return "{\"type\":\"bridge\",\"bridge\":\"" + bridge + "\"" + keys + (ipam == null ? "" : ",\"ipam\":" + ipam)
                + "}";
    }

    /**
     * {@code {"type":"host-local","dataDir":D,"ranges":[[{"subnet":S1}],[{"subnet":S2}],...],"routes":[R1,...]}}: one
     * range set per subnet (one address of each per attachment).
     *
     * @param routes route objects as JSON, e.g. {@link #route(String)}
     */
    public static String hostLocal(Path dataDir, List<String> subnets, String... routes) {
        return "{\"type\":\"host-local\",\"dataDir\":\"" + dataDir + "\",\"ranges\":["
                + subnets.stream().map(s -> "[{\"subnet\":\"" + s + "\"}]").collect(Collectors.joining(","))
                + "],\"routes\":[" + String.join(",", routes) + "]}";
    }

    /**
     * A pod network as a node runs it (the chain of issue 25's bursts): bridge {@code bridge} (gateway, ipMasq,
     * hairpin) with host-local on {@code subnet} and a default route, then portmap (portMappings, snat), firewall and
     * tuning (somaxconn 512); host-local's and tuning's data under {@code dir}/ipam and {@code dir}/tuning.
     */
    public static String podChain(String network, String bridge, String subnet, Path dir) {
        return list("1.0.0", network,
                bridge(bridge, ",\"isGateway\":true,\"ipMasq\":true,\"hairpinMode\":true",
                        hostLocal(dir.resolve("ipam"), List.of(subnet), route("0.0.0.0/0"))),
                "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true},\"snat\":true}",
                "{\"type\":\"firewall\"}",
                "{\"type\":\"tuning\",\"sysctl\":{\"net.core.somaxconn\":\"512\"},\"dataDir\":\""
                        + dir.resolve("tuning") + "\"}");
    }

    /** {@code {"dst":DST}}. */
    public static String route(String dst) {
        return "{\"dst\":\"" + dst + "\"}";
    }
}
