package io.jcni.plugins.internal.meta.firewall;

import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The {@code firewall} plugin's configuration: the Go plugin's keys (containernetworking/plugins 1.9) and defaults,
 * loaded as Go's {@code parseConf}, with jcni's checks before any side effect.
 *
 * @param backend        {@code backend}: "" (Go: firewalld if it runs, else iptables), {@code "iptables"},
 *                       {@code "firewalld"}; jcni serves "" and {@code "iptables"} (and, as Go, any unknown value,
 *                       which Go treats as "") with its nftables table and refuses {@code "firewalld"} (see
 *                       {@link #forAdd})
 * @param adminChain     {@code iptablesAdminChainName}, default {@code CNI-ADMIN}: the chain an administrator fills
 *                       with overrides, jumped to before the containers' accept rules
 * @param firewalldZone  {@code firewalldZone}, default {@code trusted}; read for Go's sake, unused (no firewalld)
 * @param ingressPolicy  {@code ingressPolicy}: {@code open} (default; also for ""), {@code same-bridge},
 *                       {@code isolated}
 * @param prevResult     the previous plugin's result; null only for DEL and GC, which need none
 */
record FirewallConfig(String backend, String adminChain, String firewalldZone, String ingressPolicy,
        Result prevResult) {

    static final String DEFAULT_ADMIN_CHAIN = "CNI-ADMIN";
    static final String OPEN = "open";
    static final String SAME_BRIDGE = "same-bridge";
    static final String ISOLATED = "isolated";
    /** iptables' limit, {@code XT_EXTENSION_MAXNAMELEN} less the NUL: a name Go's plugin could use. */
    static final int MAX_CHAIN_NAME = 28;

    /** Whether the ingress policy isolates the bridge ({@code same-bridge} or {@code isolated}). */
    boolean isolates() {
        return ingressPolicy.equals(SAME_BRIDGE) || ingressPolicy.equals(ISOLATED);
    }

    /**
     * ADD's and CHECK's configuration, every refusal before any side effect: a missing prevResult is Go's error and
     * code (999, "missing prevResult from earlier plugin"); {@code backend: "firewalld"} is code 2; a bad chain name
     * or an unknown ingress policy code 7; with an isolating policy, a prevResult without a first interface (the
     * bridge) is Go's error.
     */
    static FirewallConfig forAdd(CniRequest request) throws CniException {
        FirewallConfig conf = load(request, true);
        if (conf.prevResult == null) {
            throw new CniException(CniError.INTERNAL, "missing prevResult from earlier plugin",
                    "firewall is a chained plugin: it runs after a plugin (bridge, ptp) that set up the addresses");
        }
        if (conf.backend.equals("firewalld")) {
            throw new CniException(CniError.UNSUPPORTED_FIELD, "backend \"firewalld\" is not supported",
                    "jcni has no D-Bus client for firewalld; set backend to \"\" or \"iptables\", which jcni serves"
                            + " with nftables (table inet " + FirewallRules.TABLE + ")");
        }
        if (conf.isolates()) {
            conf.bridge();
        }
        return conf;
    }

    /**
     * DEL's and GC's configuration: the keys decoded (a value of the wrong JSON type is still code 6), nothing else
     * refused, so that a DEL is never blocked by a value ADD would have refused (Go's DEL reads no chain name and
     * its teardown of an unknown policy comes after the rules are gone).
     */
    static FirewallConfig forDel(CniRequest request) throws CniException {
        return load(request, false);
    }

    private static FirewallConfig load(CniRequest request, boolean strict) throws CniException {
        ConfigNode root = request.config().node();
        String backend = root.string("backend").orElse("");
        String admin = root.string("iptablesAdminChainName").orElse("");
        if (admin.isEmpty()) {
            admin = DEFAULT_ADMIN_CHAIN;
        }
        String zone = root.string("firewalldZone").orElse("");
        if (zone.isEmpty()) {
            zone = "trusted";
        }
        String policy = root.string("ingressPolicy").orElse("");
        if (policy.isEmpty()) {
            policy = OPEN;
        }
        if (strict) {
            checkChainName(admin);
            if (!policy.equals(OPEN) && !policy.equals(SAME_BRIDGE) && !policy.equals(ISOLATED)) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "unknown ingress policy: \"" + policy + "\"",
                        "ingressPolicy is \"open\" (the default), \"same-bridge\" or \"isolated\"");
            }
        }
        Optional<Result> previous = request.config().prevResult().isPresent()
                ? Optional.of(Result.from(request.config().prevResult().get())) : Optional.<Result>empty();
        return new FirewallConfig(backend, admin, zone, policy, previous.orElse(null));
    }

    /**
     * {@code iptablesAdminChainName}: a name Go's plugin could give iptables (1-28 characters, not starting with
     * {@code -} or {@code !}) and that {@code nft} can print and read back unquoted: letters, digits, {@code -},
     * {@code _}, {@code .}. Spaces, quotes and the like are refused (a saved ruleset with them could not be read back
     * by {@code nft -f}), as are the names of the plugin's own chains.
     */
    static void checkChainName(String name) throws CniException {
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        boolean ok = bytes >= 1 && bytes <= MAX_CHAIN_NAME && name.charAt(0) != '-';
        for (int i = 0; ok && i < name.length(); i++) {
            char c = name.charAt(i);
            ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
                    || c == '.';
        }
        if (!ok) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "iptablesAdminChainName: invalid chain name \""
                    + name + "\"", "a chain name has 1-" + MAX_CHAIN_NAME + " characters of A-Z, a-z, 0-9, '-', '_'"
                    + " and '.', and does not start with '-'");
        }
        if (FirewallRules.OWN_CHAINS.contains(name)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "iptablesAdminChainName: \"" + name
                    + "\" is one of the plugin's own chains", "choose another name (default " + DEFAULT_ADMIN_CHAIN
                    + ")");
        }
    }

    /**
     * The bridge an isolating policy applies to: the prevResult's first interface, as Go's plugin takes it (bridge
     * puts its bridge first); Go's errors when there is none.
     */
    String bridge() throws CniException {
        List<Interface> interfaces = prevResult.interfaces();
        if (interfaces.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "interface needs to be set for ingress policy \""
                    + ingressPolicy + "\", make sure to chain \"firewall\" plugin with \"bridge\"");
        }
        String name = interfaces.getFirst().name();
        if (name.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "got empty bridge name");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes >= 16 || name.indexOf('\0') >= 0) {
            throw new CniException(CniError.INTERNAL, "invalid bridge name \"" + name + "\" in prevResult",
                    "an interface name has 1-15 bytes");
        }
        return name;
    }
}
