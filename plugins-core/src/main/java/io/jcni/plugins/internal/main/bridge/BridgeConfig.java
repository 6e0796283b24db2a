package io.jcni.plugins.internal.main.bridge;

import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacAddress;
import io.jcni.plugins.internal.pkg.ip.IpMasq;
import io.jcni.plugins.internal.pkg.ip.Macs;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.PluginConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The {@code bridge} plugin's configuration, loaded as Go's {@code loadNetConf}: defaults, then the JSON, then checks,
 * then the MAC overrides ({@code CNI_ARGS MAC}, then {@code args.cni.mac}, then the {@code mac} capability's
 * {@code runtimeConfig.mac}; the last present wins). Keys and defaults are Go's (containernetworking/plugins 1.1.1,
 * plus the later {@code vlanTrunk}, {@code preserveDefaultVlan}, {@code disableContainerInterface} and
 * {@code portIsolation}).
 *
 * @param bridge                    {@code bridge}: the bridge to create or use, default {@code cni0} when the key is
 *                                  absent; "" when it is set to "" (refused by ADD, as Go does)
 * @param isGateway                 {@code isGateway}, or implied by {@code isDefaultGateway}
 * @param isDefaultGateway          {@code isDefaultGateway}
 * @param forceAddress              {@code forceAddress}: replace a different gateway address already on the bridge
 * @param ipMasq                    {@code ipMasq}: masquerade from the container's addresses ({@code IpMasq}); its
 *                                  {@code ipMasqBackend} is checked by ADD
 * @param mtu                       {@code mtu}, 0 for the kernel's default
 * @param hairpinMode               {@code hairpinMode}
 * @param promiscMode               {@code promiscMode} (on the bridge)
 * @param vlan                      {@code vlan}: the port's access VLAN, 0 for none
 * @param vlanTrunk                 the VLANs of {@code vlanTrunk}, sorted, no duplicates
 * @param preserveDefaultVlan       {@code preserveDefaultVlan}, default true
 * @param macSpoofCheck             {@code macspoofchk}: drop frames from the container whose source MAC is not its
 *                                  own ({@code SpoofCheck})
 * @param enableDad                 {@code enabledad}
 * @param disableContainerInterface {@code disableContainerInterface}: leave the container end down (no IPAM)
 * @param portIsolation             {@code portIsolation}: the host end is an isolated bridge port
 * @param mac                       the container end's MAC from the overrides, null for a random one
 * @param dns                       the configuration's {@code dns}, which replaces IPAM's when set
 * @param ipamType                  {@code ipam.type}, "" for a layer-2 only attachment
 */
record BridgeConfig(String bridge, boolean isGateway, boolean isDefaultGateway, boolean forceAddress, boolean ipMasq,
        int mtu, boolean hairpinMode, boolean promiscMode, int vlan, List<Integer> vlanTrunk,
        boolean preserveDefaultVlan, boolean macSpoofCheck, boolean enableDad, boolean disableContainerInterface,
        boolean portIsolation, MacAddress mac, Dns dns, String ipamType) {

    static final String DEFAULT_BRIDGE = "cni0";

    /** Whether addresses come from IPAM (Go's {@code isLayer3}). */
    boolean layer3() {
        return !ipamType.isEmpty();
    }

    /** Whether the bridge needs VLAN filtering ({@code vlan} or {@code vlanTrunk} set). */
    boolean vlanFiltering() {
        return vlan != 0 || !vlanTrunk.isEmpty();
    }

    /**
     * How a bridge port is set up: hairpin and isolation, and with VLAN filtering its VLANs (the default VLAN removed
     * unless preserved, {@code vlan} as the untagged PVID, the trunk VLANs tagged).
     */
    record Port(boolean hairpin, boolean isolated, int vlan, List<Integer> trunk, boolean preserveDefaultVlan) {
        boolean vlanFiltering() {
            return vlan != 0 || !trunk.isEmpty();
        }
    }

    /** The container's port (its veth's host end): the configured hairpin, isolation and VLANs. */
    Port containerPort() {
        return new Port(hairpinMode, portIsolation, vlan, vlanTrunk, preserveDefaultVlan);
    }

    /** The port of the {@code vlan} gateway's veth: the VLANs, no hairpin, not isolated. */
    Port gatewayPort() {
        return new Port(false, false, vlan, vlanTrunk, preserveDefaultVlan);
    }

    /**
     * ADD's configuration: {@link #load} with the MAC overrides, an empty bridge name and an unknown
     * {@code ipMasqBackend} refused, all before any side effect.
     */
    static BridgeConfig forAdd(CniRequest request) throws CniException {
        BridgeConfig conf = load(request, mac(request, request.config().node()));
        if (conf.ipMasq()) {
            IpMasq.checkBackend(request.config());
        }
        conf.requireBridgeName();
        Timing.phase("config");
        return conf;
    }

    /**
     * DEL's and CHECK's configuration: without the MAC overrides, which they do not need (and Go's DEL failing on an
     * unknown CNI_ARGS key would leak the attachment).
     */
    static BridgeConfig load(CniRequest request) throws CniException {
        BridgeConfig conf = load(request, null);
        Timing.phase("config");
        return conf;
    }

    private static BridgeConfig load(CniRequest request, MacAddress mac) throws CniException {
        PluginConfig config = request.config();
        ConfigNode root = config.node();
        // As Go's: the default applies when the key is absent; an explicit "" stays "" and ADD refuses it.
        String bridge = root.string("bridge").orElse(DEFAULT_BRIDGE);
        if (!bridge.isEmpty()) {
            try {
                LinkAttrs.checkName(bridge);
            } catch (IllegalArgumentException e) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "bridge: " + e.getMessage());
            }
        }
        boolean isDefaultGateway = flag(root, "isDefaultGateway", false);
        boolean isGateway = flag(root, "isGateway", false) || isDefaultGateway;
        int mtu = (int) root.integer("mtu", 0, 65535).orElse(0L).longValue();
        long vlan = root.integer("vlan", Integer.MIN_VALUE, Integer.MAX_VALUE).orElse(0L);
        if (vlan < 0 || vlan > 4094) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "invalid VLAN ID " + vlan + " (must be between 0 and 4094)");
        }
        List<Integer> trunk = trunk(root);
        if (vlan > 0 && !trunk.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "cannot set vlan and vlanTrunk at the same time");
        }
        boolean hairpin = flag(root, "hairpinMode", false);
        boolean promisc = flag(root, "promiscMode", false);
        if (hairpin && promisc) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "cannot set hairpin mode and promiscuous mode at the same time");
        }
        boolean disableContainerInterface = flag(root, "disableContainerInterface", false);
        String ipamType = config.ipamType();
        if (disableContainerInterface && !ipamType.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "cannot use IPAM when DisableContainerInterface flag is set");
        }
        return new BridgeConfig(bridge, isGateway, isDefaultGateway, flag(root, "forceAddress", false),
                flag(root, "ipMasq", false), mtu, hairpin, promisc, (int) vlan, trunk,
                flag(root, "preserveDefaultVlan", true), flag(root, "macspoofchk", false),
                flag(root, "enabledad", false), disableContainerInterface, flag(root, "portIsolation", false), mac,
                config.dns(), ipamType);
    }

    /**
     * ADD needs a bridge name: {@code "bridge": ""} fails with Go 1.1.1's message (which comes from creating a link
     * without a name), code 7 where Go's is untyped; it does not become {@code cni0}. DEL and CHECK take it as given.
     */
    private void requireBridgeName() throws CniException {
        if (bridge.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "failed to create bridge \"\": could not add \"\": LinkAttrs.Name cannot be empty");
        }
    }

    private static boolean flag(ConfigNode root, String key, boolean fallback) throws CniException {
        return root.bool(key).orElse(fallback);
    }

    /** {@code vlanTrunk}: Go's {@code collectVlanTrunk} rules and messages, sorted and deduplicated. */
    private static List<Integer> trunk(ConfigNode root) throws CniException {
        TreeSet<Integer> vlans = new TreeSet<>();
        for (ConfigNode item : root.array("vlanTrunk")) {
            item.asObject();
            Optional<Long> min = item.integer("minID", Integer.MIN_VALUE, Integer.MAX_VALUE);
            Optional<Long> max = item.integer("maxID", Integer.MIN_VALUE, Integer.MAX_VALUE);
            Optional<Long> id = item.integer("id", Integer.MIN_VALUE, Integer.MAX_VALUE);
            if (min.isPresent() && max.isPresent()) {
                long lo = min.get();
                long hi = max.get();
                if (lo <= 0 || lo > 4094) {
                    throw trunkError("incorrect trunk minID parameter");
                }
                if (hi <= 0 || hi > 4094) {
                    throw trunkError("incorrect trunk maxID parameter");
                }
                if (hi < lo) {
                    throw trunkError("minID is greater than maxID in trunk parameter");
                }
                for (long v = lo; v <= hi; v++) {
                    vlans.add((int) v);
                }
            } else if (max.isPresent()) {
                throw trunkError("minID and maxID should be configured simultaneously, minID is missing");
            } else if (min.isPresent()) {
                throw trunkError("minID and maxID should be configured simultaneously, maxID is missing");
            }
            if (id.isPresent()) {
                if (id.get() <= 0 || id.get() > 4094) {
                    throw trunkError("incorrect trunk id parameter");
                }
                vlans.add(id.get().intValue());
            }
        }
        return List.copyOf(new ArrayList<>(vlans));
    }

    private static CniException trunkError(String message) {
        return new CniException(CniError.INVALID_NETWORK_CONFIG, message);
    }

    /** The container MAC from the overrides, in Go's order (later wins); each malformed one is an error. */
    private static MacAddress mac(CniRequest request, ConfigNode root) throws CniException {
        MacAddress mac = null;
        if (!request.cniArgsText().isEmpty()) {
            CniArgs args = request.cniArgs().requireKnown(List.of("MAC"));
            Optional<String> text = args.get("MAC");
            if (text.isPresent() && !text.get().isEmpty()) {
                mac = parseMac(text.get(), "CNI_ARGS MAC", CniError.INVALID_ENVIRONMENT_VARIABLES);
            }
        }
        Optional<ConfigNode> args = root.object("args");
        if (args.isPresent()) {
            Optional<ConfigNode> cni = args.get().object("cni");
            if (cni.isPresent()) {
                String text = cni.get().string("mac").orElse("");
                if (!text.isEmpty()) {
                    mac = parseMac(text, "args.cni.mac", CniError.INVALID_NETWORK_CONFIG);
                }
            }
        }
        Optional<ConfigNode> runtime = root.object("runtimeConfig");
        if (runtime.isPresent()) {
            String text = runtime.get().string("mac").orElse("");
            if (!text.isEmpty()) {
                mac = parseMac(text, "runtimeConfig.mac", CniError.INVALID_NETWORK_CONFIG);
            }
        }
        return mac;
    }

    /**
     * A unicast MAC in the forms Go's {@code net.ParseMAC} takes for Ethernet ({@link Macs}); refused with
     * {@code code} (4 for CNI_ARGS, 7 for the configuration).
     */
    static MacAddress parseMac(String text, String field, int code) throws CniException {
        try {
            return Macs.parseUnicast(text, field);
        } catch (CniException e) {
            throw code == e.code() ? e : new CniException(code, e.error().msg(), e.error().details());
        }
    }
}
