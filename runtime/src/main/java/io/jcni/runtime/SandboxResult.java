package io.jcni.runtime;

import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link SandboxNetworks#setup} made, by interface name: go-cni's {@code Result}. Built from each network's
 * result (converted to the newest result shape, {@link Result#from}), in the order of the networks.
 *
 * <ul>
 * <li>{@link #interfaces()}: every network's own interface ({@code eth0}, {@code eth1}, {@code lo}), even when its
 * plugins reported none, then every interface the results list (host-side ones too, such as the bridge and the veth's
 * host end, whose {@code sandbox} is ""), each with its MAC, sandbox and addresses. An address goes to the interface
 * its {@code interface} index names in its own result; an address without an index (or with an index outside that
 * result's interfaces, which jcni's runtime passes on as libcni does) goes to its network's interface. go-cni puts
 * such an address on {@code eth0} whatever its network: here an address of the second network stays on
 * {@code eth1}.</li>
 * <li>{@link #dns()}: each network's DNS settings, one per network in order (empty when its plugins returned none),
 * as go-cni lists them.</li>
 * <li>{@link #routes()}: the routes of all results, in order.</li>
 * <li>{@link #networks()}: each network's whole result (go-cni's {@code Raw()}).</li>
 * </ul>
 *
 * @param interfaces by name, in the order they were first met
 * @param dns        one per network
 * @param routes     all routes
 * @param networks   each network's result, in network order
 */
public record SandboxResult(Map<String, InterfaceConfig> interfaces, List<Dns> dns, List<Route> routes,
        List<NetworkResult> networks) {

    public SandboxResult {
        interfaces = Collections.unmodifiableMap(new LinkedHashMap<>(interfaces));
        dns = List.copyOf(dns);
        routes = List.copyOf(routes);
        networks = List.copyOf(networks);
    }

    /**
     * One interface (go-cni's {@code Config}).
     *
     * @param mac     its hardware address, or "" when no result gave one
     * @param sandbox the namespace it is in, "" for an interface on the node
     * @param ips     its addresses with their gateways ({@link IpConfig#interfaceIndex()} is null: the index meant
     *                something only in its own result)
     */
    public record InterfaceConfig(String mac, String sandbox, List<IpConfig> ips) {
        public InterfaceConfig {
            Objects.requireNonNull(mac, "mac");
            Objects.requireNonNull(sandbox, "sandbox");
            ips = List.copyOf(ips);
        }
    }

    /**
     * One network's result.
     *
     * @param name   the network's name
     * @param ifName the interface name it was set up with
     * @param result its result in the newest shape
     */
    public record NetworkResult(String name, String ifName, Result result) {
        public NetworkResult {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(ifName, "ifName");
            Objects.requireNonNull(result, "result");
        }
    }

    /** The view of these results (see the class comment). */
    public static SandboxResult of(List<NetworkResult> networks) {
        Map<String, String> macs = new LinkedHashMap<>();
        Map<String, String> sandboxes = new LinkedHashMap<>();
        Map<String, List<IpConfig>> ips = new LinkedHashMap<>();
        for (NetworkResult network : networks) {
            ips.putIfAbsent(network.ifName(), new ArrayList<>());
        }
        List<Dns> dns = new ArrayList<>();
        List<Route> routes = new ArrayList<>();
        for (NetworkResult network : networks) {
            Result result = network.result();
            for (Interface link : result.interfaces()) {
                ips.putIfAbsent(link.name(), new ArrayList<>());
                if (!link.mac().isEmpty()) {
                    macs.put(link.name(), link.mac());
                }
                if (!link.sandbox().isEmpty()) {
                    sandboxes.put(link.name(), link.sandbox());
                }
            }
            for (IpConfig ip : result.ips()) {
                Integer index = ip.interfaceIndex();
                String name = index != null && index >= 0 && index < result.interfaces().size()
                        ? result.interfaces().get(index).name() : network.ifName();
                ips.get(name).add(ip.withInterfaceIndex(null));
            }
            dns.add(result.dns());
            routes.addAll(result.routes());
        }
        Map<String, InterfaceConfig> interfaces = new LinkedHashMap<>();
        for (Map.Entry<String, List<IpConfig>> entry : ips.entrySet()) {
            String name = entry.getKey();
            interfaces.put(name, new InterfaceConfig(macs.getOrDefault(name, ""), sandboxes.getOrDefault(name, ""),
                    entry.getValue()));
        }
        return new SandboxResult(interfaces, dns, routes, networks);
    }
}
