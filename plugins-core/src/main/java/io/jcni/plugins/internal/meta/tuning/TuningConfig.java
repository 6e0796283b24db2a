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

        LinkedHashMap<String, String> sysctl = new LinkedHashMap<>();
        readSysctls(root.object("sysctl"), sysctl);
        String mac = root.string("mac").orElse("");
        int mtu = (int) root.integer("mtu", 0, Integer.MAX_VALUE).orElse(0L).longValue();
        boolean promisc = root.bool("promisc").orElse(false);
        Boolean allmulti = root.bool("allmulti").orElse(null);
        int txQueueLen = (int) root.integer("txQLen", 0, Integer.MAX_VALUE).orElse(-1L).longValue();

        if (!request.cniArgsText().isEmpty()) {
            String argMac = request.cniArgs().requireKnown(List.of("MAC")).get("MAC").orElse("");
            if (!argMac.isEmpty()) {
                mac = argMac;
            }
        }
        Optional<ConfigNode> runtime = root.object("runtimeConfig");
        if (runtime.isPresent()) {
            String runtimeMac = runtime.get().string("mac").orElse("");
            if (!runtimeMac.isEmpty()) {
                mac = runtimeMac;
            }
        }
        Optional<ConfigNode> args = root.object("args");
        Optional<ConfigNode> cni = args.isPresent() ? args.get().object("cni") : Optional.<ConfigNode>empty();
        if (cni.isPresent()) {
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

        List<Setting> sysctls = new ArrayList<>(sysctl.size());
        Map<String, String> byPath = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : sysctl.entrySet()) {
            String key = entry.getKey();
            if (allowlist != null) {
                allowlist.check(key);
            }
            String path = SysctlKeys.canonical(key, request.ifName());
            String other = byPath.put(path, key);
            if (other != null) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "conflicting sysctl keys \"" + other
                        + "\" and \"" + key + "\"", "both name /proc/sys/" + path);
            }
            sysctls.add(new Setting(key, path, entry.getValue()));
        }

        Optional<CniResult> previous = config.prevResult();
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Required prevResult missing",
                    "tuning is a chained plugin: it runs after a plugin that created the interface");
        }
        return new TuningConfig(dataDir, List.copyOf(sysctls), mac.isEmpty() ? null : Macs.parseUnicast(mac, "mac"),
                mtu, promisc ? Boolean.TRUE : null, allmulti, txQueueLen, previous.get());
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
