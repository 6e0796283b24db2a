package io.jcni.runtime;

import io.jcni.runtime.Capabilities.Bandwidth;
import io.jcni.runtime.Capabilities.Dns;
import io.jcni.runtime.Capabilities.IpRange;
import io.jcni.runtime.Capabilities.PortMapping;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniException;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.Json;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A sandbox (a pod, a container) whose networks {@link SandboxNetworks} sets up, checks and removes: what go-cni's
 * {@code Setup(ctx, id, path, opts...)} takes. Every network of the sandbox gets the same container ID, namespace,
 * CNI_ARGS and capability arguments; only the interface name differs.
 *
 * {@snippet :
 * Sandbox sandbox = Sandbox.of("pod-1234", "/var/run/netns/pod-1234")
 *         .withLabels(Map.of("K8S_POD_NAMESPACE", "default", "K8S_POD_NAME", "web"))  // go-cni's WithLabels
 *         .withPortMappings(List.of(new PortMapping(8080, 80, "tcp")))               // WithCapabilityPortMap
 *         .withBandwidth(new Bandwidth(10_000_000, 10_000_000, 0, 0));               // WithCapabilityBandWidth
 * }
 *
 * @param id           {@code CNI_CONTAINERID}, the spec's rule ({@code ^[a-zA-Z0-9][a-zA-Z0-9_.\-]*$}); checked at
 *                     each call (code 3 or 4)
 * @param netns        {@code CNI_NETNS}, the path of the sandbox's network namespace; "" for a {@code remove} after
 *                     the namespace is gone (the spec allows DEL without one)
 * @param args         {@code CNI_ARGS}: labels and arguments ({@link #withLabels}, {@link #withArg})
 * @param capabilities the capability arguments ({@link Capabilities}); each plugin gets those it enables
 */
public record Sandbox(String id, String netns, CniArgs args, Capabilities capabilities) {

    public Sandbox {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(netns, "netns");
        args = args == null ? CniArgs.empty() : args;
        capabilities = capabilities == null ? Capabilities.NONE : capabilities;
    }

    /** A sandbox without labels or capability arguments. */
    public static Sandbox of(String id, String netns) {
        return new Sandbox(id, netns, CniArgs.empty(), Capabilities.NONE);
    }

    /**
     * Adds {@code labels} to CNI_ARGS, as go-cni's {@code WithLabels} does (containerd passes
     * {@code K8S_POD_NAMESPACE}, {@code K8S_POD_NAME}, {@code K8S_POD_INFRA_CONTAINER_ID}, {@code K8S_POD_UID} and
     * {@code IgnoreUnknown=1} this way). A key already present takes the new value; new keys follow in the map's
     * iteration order (a {@code LinkedHashMap} or {@code TreeMap} keeps CNI_ARGS stable from call to call).
     *
     * @throws CniException code 4 for a key or value that cannot be passed in CNI_ARGS (empty key, {@code ;} or
     *                      {@code =} in it)
     */
    public Sandbox withLabels(Map<String, String> labels) throws CniException {
        List<Map.Entry<String, String>> pairs = new ArrayList<>(args.pairs());
        for (Map.Entry<String, String> label : labels.entrySet()) {
            put(pairs, label.getKey(), label.getValue());
        }
        return new Sandbox(id, netns, CniArgs.of(pairs), capabilities);
    }

    /** Adds one CNI_ARGS pair (go-cni's {@code WithArgs}); as {@link #withLabels}. */
    public Sandbox withArg(String key, String value) throws CniException {
        List<Map.Entry<String, String>> pairs = new ArrayList<>(args.pairs());
        put(pairs, key, value);
        return new Sandbox(id, netns, CniArgs.of(pairs), capabilities);
    }

    private static void put(List<Map.Entry<String, String>> pairs, String key, String value) {
        for (int i = 0; i < pairs.size(); i++) {
            if (pairs.get(i).getKey().equals(key)) {
                pairs.set(i, new AbstractMap.SimpleImmutableEntry<>(key, value));
                return;
            }
        }
        pairs.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
    }

    public Sandbox withCapabilities(Capabilities newCapabilities) {
        return new Sandbox(id, netns, args, newCapabilities);
    }

    /** Published ports (go-cni's {@code WithCapabilityPortMap}). */
    public Sandbox withPortMappings(List<PortMapping> mappings) {
        return withCapabilities(capabilities.withPortMappings(mappings));
    }

    /** Traffic shaping (go-cni's {@code WithCapabilityBandWidth}). */
    public Sandbox withBandwidth(Bandwidth limits) {
        return withCapabilities(capabilities.withBandwidth(limits));
    }

    /** IPAM range sets (go-cni's {@code WithCapabilityIPRanges}, with CONVENTIONS.md's list of range sets). */
    public Sandbox withIpRanges(List<List<IpRange>> rangeSets) {
        return withCapabilities(capabilities.withIpRanges(rangeSets));
    }

    /** Resolver settings (go-cni's {@code WithCapabilityDNS}). */
    public Sandbox withDns(Dns settings) {
        return withCapabilities(capabilities.withDns(settings));
    }

    /** Requested addresses ({@code ips}). */
    public Sandbox withIps(List<IpPrefix> addresses) {
        return withCapabilities(capabilities.withIps(addresses));
    }

    /** The interface's hardware address ({@code mac}). */
    public Sandbox withMac(String address) {
        return withCapabilities(capabilities.withMac(address));
    }

    /** The sandbox's cgroup ({@code cgroupPath}). */
    public Sandbox withCgroupPath(String path) {
        return withCapabilities(capabilities.withCgroupPath(path));
    }

    /** Any other capability (go-cni's {@code WithCapability}). */
    public Sandbox withCapability(String name, Json value) {
        return withCapabilities(capabilities.with(name, value));
    }

    /** The runtime configuration of this sandbox's attachment named {@code ifName}. */
    public RuntimeConf runtimeConf(String ifName) {
        return new RuntimeConf(id, netns, ifName, args, capabilities.toJson());
    }
}
