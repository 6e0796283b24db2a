package io.jcni.plugins.internal.ipam.staticip;

import io.jcni.plugins.internal.pkg.ipam.IpamFields;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code static} IPAM plugin: hands out the addresses its configuration lists, as Go's {@code static} does.
 *
 * <p>Configuration ({@code ipam}): {@code addresses} ({@code [{"address": "10.10.0.1/24", "gateway": "10.10.0.254"}]},
 * host bits kept), {@code routes}, {@code dns}. Overrides, in Go's order: CNI_ARGS {@code IP} (comma-separated CIDRs,
 * appended) and {@code GATEWAY} (comma-separated; each sets the gateway of every address in its subnet); then
 * {@code args.cni.ips}, then the {@code ips} capability ({@code runtimeConfig.ips}), each replacing all addresses.
 * Configurations before 0.3.0 allow one address per family.
 *
 * <p>Allocates nothing, so DEL and GC have nothing to do. CHECK needs a {@code prevResult} and verifies every
 * configured address is in it with the configured gateway (Go checks the gateway only, and passes when an address is
 * missing altogether; jcni reports the missing address). Error codes follow the spec (7 for configuration, 4 for
 * CNI_ARGS) where Go's plugin returns untyped errors (999); the messages are Go's.
 */
public final class StaticPlugin implements CniPlugin {

    /** The configuration after every override. */
    record Config(List<IpConfig> addresses, List<Route> routes, Dns dns) {
    }

    /**
     * Go's {@code LoadIPAMConfig}: the configuration's addresses, CNI_ARGS' {@code IP} added and {@code GATEWAY}
     * applied, then replaced by {@code args.cni.ips} and then by the {@code ips} capability when either is set.
     */
    static Config load(CniRequest request) throws CniException {
        PluginConfig config = request.config();
        ConfigNode ipam = IpamFields.ipam(config);
        List<IpConfig> addresses = configuredAddresses(ipam);
        CniArgs args = request.cniArgs().requireKnown(List.of("IP", "GATEWAY"));
        addIpArgs(addresses, args);
        applyGatewayArgs(addresses, args);
        addresses = overridden(addresses, config.node());
        requireOnePerFamilyBefore030(addresses, config);
        return new Config(List.copyOf(addresses), IpamFields.routes(ipam), IpamFields.dns(ipam));
    }

    /** {@code ipam.addresses}: each an {@code address} prefix and an optional {@code gateway}. */
    private static List<IpConfig> configuredAddresses(ConfigNode ipam) throws CniException {
        List<IpConfig> addresses = new ArrayList<>();
        for (ConfigNode address : ipam.array("addresses")) {
            address.asObject();
            IpPrefix prefix = address.requireField("address").asPrefix();
            addresses.add(new IpConfig(prefix, address.ip("gateway").orElse(null)));
        }
        return addresses;
    }

    /** CNI_ARGS {@code IP=a,b}: more addresses, without gateway. */
    private static void addIpArgs(List<IpConfig> addresses, CniArgs args) throws CniException {
        Optional<String> ipArg = args.get("IP");
        if (ipArg.isPresent() && !ipArg.get().isEmpty()) {
            for (String item : ipArg.get().split(",", -1)) {
                addresses.add(new IpConfig(IpPrefix.parse(item.strip(), "CNI_ARGS IP",
                        CniError.INVALID_ENVIRONMENT_VARIABLES), null));
            }
        }
    }

    /** CNI_ARGS {@code GATEWAY=a,b}: each becomes the gateway of every address whose subnet holds it. */
    private static void applyGatewayArgs(List<IpConfig> addresses, CniArgs args) throws CniException {
        Optional<String> gatewayArg = args.get("GATEWAY");
        if (gatewayArg.isPresent() && !gatewayArg.get().isEmpty()) {
            for (String item : gatewayArg.get().split(",", -1)) {
                InetAddress gateway;
                try {
                    gateway = IpText.parseAddress(item.strip(), "CNI_ARGS GATEWAY",
                            CniError.INVALID_ENVIRONMENT_VARIABLES);
                } catch (CniException e) {
                    throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "invalid gateway address: " + item);
                }
                for (int i = 0; i < addresses.size(); i++) {
                    IpConfig address = addresses.get(i);
                    if (address.address().contains(gateway)) {
                        addresses.set(i, new IpConfig(address.address(), gateway));
                    }
                }
            }
        }
    }

    /** {@code args.cni.ips}, then the {@code ips} capability ({@code runtimeConfig.ips}): the later set one wins. */
    private static List<IpConfig> overridden(List<IpConfig> addresses, ConfigNode root) throws CniException {
        List<String> fromArgs = List.of();
        Optional<ConfigNode> argsNode = root.object("args");
        if (argsNode.isPresent()) {
            Optional<ConfigNode> cni = argsNode.get().object("cni");
            if (cni.isPresent()) {
                fromArgs = cni.get().stringList("ips");
            }
        }
        List<IpConfig> result = addresses;
        if (!fromArgs.isEmpty()) {
            result = prefixes(fromArgs, "args.cni.ips");
        }
        List<String> fromCapability = List.of();
        Optional<ConfigNode> runtime = root.object("runtimeConfig");
        if (runtime.isPresent()) {
            fromCapability = runtime.get().stringList("ips");
        }
        if (!fromCapability.isEmpty()) {
            result = prefixes(fromCapability, "runtimeConfig.ips");
        }
        return result;
    }

    /** Before 0.3.0 a result holds one address per family. */
    private static void requireOnePerFamilyBefore030(List<IpConfig> addresses, PluginConfig config)
            throws CniException {
        int v4 = 0;
        int v6 = 0;
        for (IpConfig address : addresses) {
            if (address.isIpv4()) {
                v4++;
            } else {
                v6++;
            }
        }
        if ((v4 > 1 || v6 > 1) && config.cniVersion().before(CniVersion.V0_3_0)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "CNI version " + config.cniVersion() + " does not support more than 1 address per family");
        }
    }

    private static List<IpConfig> prefixes(List<String> texts, String field) throws CniException {
        List<IpConfig> out = new ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            out.add(new IpConfig(IpPrefix.parse(texts.get(i), field + "[" + i + "]",
                    CniError.INVALID_NETWORK_CONFIG), null));
        }
        return out;
    }

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config config = load(request);
        return new Result(List.of(), config.addresses(), config.routes(), config.dns());
    }

    @Override
    public void del(CniRequest request) throws CniException {
        // Nothing was allocated. The configuration is not even read (as in Go): DEL must not fail on it.
    }

    @Override
    public void check(CniRequest request) throws CniException {
        Config config = load(request);
        Optional<CniResult> previous = request.config().prevResult();
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Required prevResult missing");
        }
        Result result = Result.from(previous.get());
        for (IpConfig wanted : config.addresses()) {
            IpConfig found = null;
            for (IpConfig ip : result.ips()) {
                if (ip.address().address().equals(wanted.address().address())) {
                    found = ip;
                    break;
                }
            }
            if (found == null) {
                throw new CniException(CniError.FIRST_PLUGIN_SPECIFIC, "static: Failed to find addr "
                        + IpText.format(wanted.address().address()) + " on interface " + request.ifName());
            }
            if (wanted.gateway() != null && !wanted.gateway().equals(found.gateway())) {
                throw new CniException(CniError.FIRST_PLUGIN_SPECIFIC, "static: Failed to match addr "
                        + IpText.format(found.address().address()) + " on interface " + request.ifName());
            }
        }
    }
}
