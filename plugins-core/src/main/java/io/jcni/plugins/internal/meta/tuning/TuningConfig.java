package io.jcni.plugins.internal.meta.tuning;

import io.jcni.netlink.MacAddress;
import io.jcni.plugins.internal.pkg.ip.Macs;
import io.jcni.plugins.sdk.CallerPath;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.PluginConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * tuning's configuration after every override, in Go's order: the plugin's own keys ({@code sysctl}, {@code mac},
 * {@code mtu}, {@code promisc}, {@code allmulti}, {@code txQLen}, {@code dataDir}); then CNI_ARGS {@code MAC}; then
 * the {@code mac} capability ({@code runtimeConfig.mac}); then {@code args.cni} ({@code sysctl} entries merged over the
 * configured ones, the other keys replacing theirs).
 *
 * @param dataDir     where the values to restore on DEL are kept (Go's {@code dataDir}, default /run/cni/tuning)
 * @param sysctls     the sysctls to write, in document order, keys canonical ({@link SysctlKeys})
 * @param mac         the MAC to set, or null
 * @param mtu         the MTU to set, or 0
 * @param promisc     true to set promiscuous mode on; null when not configured (tuning never turns it off on ADD)
 * @param allmulti    the all-multicast mode to set, or null
 * @param txQueueLen  the transmit queue length to set, or -1
 * @param prevResult  the previous plugin's result (required for ADD and CHECK)
 */
record TuningConfig(Path dataDir, List<Setting> sysctls, MacAddress mac, int mtu, Boolean promisc, Boolean allmulti,
        int txQueueLen, CniResult prevResult) {

    static final Path DEFAULT_DATA_DIR = Path.of("/run/cni/tuning");

    /** One sysctl: the key as configured, its canonical path under /proc/sys, the value to write. */
    record Setting(String key, String path, String value) {
    }

    /** Whether any link attribute is to be changed (and so the link must exist). */
    boolean changesLink() {
        return mac != null || mtu != 0 || promisc != null || allmulti != null || txQueueLen >= 0;
    }

    /**
     * The configuration of an ADD or CHECK. Every value is validated here, before anything is changed.
     *
     * @param allowlist the administrator's allowlist, null for none (CHECK passes null: only ADD enforces it)
     */
    static TuningConfig load(CniRequest request, SysctlAllowlist allowlist) throws CniException {
        PluginConfig config = request.config();
        ConfigNode root = config.node();
        Path dataDir = dataDir(config);
        Values values = Values.configured(root);
        values.macFromCniArgs(request);
        values.macFromCapability(root);
        values.overrideFromArgsCni(root);
        List<Setting> sysctls = settings(values.sysctl, allowlist, request.ifName());
        CniResult previous = requirePrevResult(config);
        return new TuningConfig(dataDir, sysctls, values.mac.isEmpty() ? null : Macs.parseUnicast(values.mac, "mac"),
                values.mtu, values.promisc ? Boolean.TRUE : null, values.allmulti, values.txQueueLen, previous);
    }

    /** The values as {@link #load} overrides them, in Go's order; one per call. */
    private static final class Values {
        final LinkedHashMap<String, String> sysctl = new LinkedHashMap<>();
        String mac;
        int mtu;
        boolean promisc;
        Boolean allmulti;
        int txQueueLen;

        /** The plugin's own keys. */
        static Values configured(ConfigNode root) throws CniException {
            Values v = new Values();
            readSysctls(root.object("sysctl"), v.sysctl);
            v.mac = root.string("mac").orElse("");
            v.mtu = (int) root.integer("mtu", 0, Integer.MAX_VALUE).orElse(0L).longValue();
            v.promisc = root.bool("promisc").orElse(false);
            v.allmulti = root.bool("allmulti").orElse(null);
            v.txQueueLen = (int) root.integer("txQLen", 0, Integer.MAX_VALUE).orElse(-1L).longValue();
            return v;
        }

        /** CNI_ARGS {@code MAC}, the only key tuning accepts there. */
        void macFromCniArgs(CniRequest request) throws CniException {
            if (!request.cniArgsText().isEmpty()) {
                String argMac = request.cniArgs().requireKnown(List.of("MAC")).get("MAC").orElse("");
                if (!argMac.isEmpty()) {
                    mac = argMac;
                }
            }
        }

        /** The {@code mac} capability. */
        void macFromCapability(ConfigNode root) throws CniException {
            Optional<ConfigNode> runtime = root.object("runtimeConfig");
            if (runtime.isPresent()) {
                String runtimeMac = runtime.get().string("mac").orElse("");
                if (!runtimeMac.isEmpty()) {
                    mac = runtimeMac;
                }
            }
        }

        /** {@code args.cni}: {@code sysctl} entries merged over the configured ones, the other keys replacing. */
        void overrideFromArgsCni(ConfigNode root) throws CniException {
            Optional<ConfigNode> args = root.object("args");
            Optional<ConfigNode> cni = args.isPresent() ? args.get().object("cni") : Optional.<ConfigNode>empty();
            if (cni.isEmpty()) {
                return;
            }
            ConfigNode a = cni.get();
            readSysctls(a.object("sysctl"), sysctl);
            Optional<String> argMac = a.string("mac");
            if (argMac.isPresent()) {
                mac = argMac.get();
            }
            Optional<Boolean> argPromisc = a.bool("promisc");
            if (argPromisc.isPresent()) {
                promisc = argPromisc.get();
            }
            Optional<Long> argMtu = a.integer("mtu", 0, Integer.MAX_VALUE);
            if (argMtu.isPresent()) {
                mtu = (int) argMtu.get().longValue();
            }
            Optional<Boolean> argAllmulti = a.bool("allmulti");
            if (argAllmulti.isPresent()) {
                allmulti = argAllmulti.get();
            }
            Optional<Long> argTxQueueLen = a.integer("txQLen", 0, Integer.MAX_VALUE);
            if (argTxQueueLen.isPresent()) {
                txQueueLen = (int) argTxQueueLen.get().longValue();
            }
        }
    }

    /**
     * The sysctls in document order, each checked against the allowlist (if any) and given its canonical path; two
     * keys naming one path are refused.
     */
    private static List<Setting> settings(Map<String, String> sysctl, SysctlAllowlist allowlist, String ifName)
            throws CniException {
        List<Setting> sysctls = new ArrayList<>(sysctl.size());
        Map<String, String> byPath = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : sysctl.entrySet()) {
            String key = entry.getKey();
            if (allowlist != null) {
                allowlist.check(key);
            }
            String path = SysctlKeys.canonical(key, ifName);
            String other = byPath.put(path, key);
            if (other != null) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "conflicting sysctl keys \"" + other
                        + "\" and \"" + key + "\"", "both name /proc/sys/" + path);
            }
            sysctls.add(new Setting(key, path, entry.getValue()));
        }
        return List.copyOf(sysctls);
    }

    private static CniResult requirePrevResult(PluginConfig config) throws CniException {
        Optional<CniResult> previous = config.prevResult();
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Required prevResult missing",
                    "tuning is a chained plugin: it runs after a plugin that created the interface");
        }
        return previous.get();
    }

    /** {@code dataDir}, or Go's default: all that DEL needs from the configuration. */
    static Path dataDir(PluginConfig config) throws CniException {
        Optional<String> dir = config.node().string("dataDir");
        if (dir.isEmpty() || dir.get().isEmpty()) {
            return DEFAULT_DATA_DIR;
        }
        if (dir.get().indexOf('\0') >= 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "dataDir: invalid path");
        }
        return CallerPath.of(dir.get());
    }

    private static void readSysctls(Optional<ConfigNode> node, Map<String, String> into) throws CniException {
        if (node.isEmpty()) {
            return;
        }
        for (Map.Entry<String, ConfigNode> entry : node.get().entries()) {
            if (entry.getValue().isNull()) {
                throw entry.getValue().invalid("a sysctl value must be a string");
            }
            into.put(entry.getKey(), entry.getValue().asString());
        }
    }
}
