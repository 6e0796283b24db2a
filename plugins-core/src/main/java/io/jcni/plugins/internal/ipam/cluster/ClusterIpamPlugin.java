package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.pkg.ipam.IpamFields;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamStore;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeConfig;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeIpamPlugin;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.sdk.CallerPath;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniNames;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.IpPrefix;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code cluster-ipam} IPAM plugin: host-local's ranges, allocated for a whole cluster from etcd (the store is
 * {@link ClusterStore}; the design is in the package documentation).
 *
 * <p>Configuration ({@code ipam}): host-local's range syntax as {@link RangeConfig} reads it ({@code ranges},
 * the legacy {@code subnet}/{@code rangeStart}/{@code rangeEnd}/{@code gateway}, {@code routes}, {@code resolvConf},
 * the {@code ipRanges} and {@code ips} capabilities, CNI_ARGS {@code IP}); {@code exclude} (CIDRs never handed out,
 * e.g. addresses reserved for routers); {@code nodeName} (default: the request's {@code JCNI_NODE_NAME}, else the
 * host name); {@code blockSize} / {@code blockSizeV6} (prefix length of a node's blocks, default 26 and 122: 64
 * addresses); {@code nodeTtlSeconds} (node liveness, default 3600; 0 turns liveness and the reclaim of vanished
 * nodes off); {@code importHostLocal} (a host-local data directory whose reservations of this network become this
 * node's, once: the migration from host-local, see {@link HostLocalImport}); {@code etcd} ({@link EtcdConfig}).
 *
 * <p>Error codes: 7 for configuration (also a range overlapping another network's in the same etcd prefix, and
 * credentials or TLS files etcd refuses or that cannot be read), 11 when etcd cannot be reached or has no quorum
 * within {@code requestTimeoutSeconds}, 100 when etcd holds a key of this plugin that cannot be read, 999 with
 * host-local's messages when no address is left or a requested one is taken; STATUS answers 50 when etcd is not
 * usable. Nothing is written to etcd by a call that fails.
 */
public final class ClusterIpamPlugin extends RangeIpamPlugin<ClusterIpamPlugin.Config> {
    /** The environment variable naming the node, when {@code nodeName} is not configured. */
    public static final String NODE_ENV = "JCNI_NODE_NAME";

    /** The configuration after every override. */
    record Config(Ranges ranges, ClusterStore.Settings settings, EtcdConfig etcd) {
    }

    public ClusterIpamPlugin() {
        super("cluster-ipam", "etcd");
    }

    @Override
    protected Config load(CniRequest request) throws CniException {
        Ranges ranges = Ranges.load(request);
        ConfigNode ipam = IpamFields.ipam(request.config());
        List<IpPrefix> exclude = new ArrayList<>();
        List<String> excluded = ipam.stringList("exclude");
        for (int i = 0; i < excluded.size(); i++) {
            exclude.add(IpPrefix.parse(excluded.get(i), ipam.path() + ".exclude[" + i + "]"));
        }
        String node = nodeName(request, ipam);
        int v4 = ipam.integer("blockSize", 16, 32).orElse(26L).intValue();
        int v6 = ipam.integer("blockSizeV6", 104, 128).orElse(122L).intValue();
        long ttl = ipam.integer("nodeTtlSeconds", 0, 365L * 24 * 3600).orElse(3600L);
        if (ttl > 0 && ttl < 5) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "cluster-ipam: nodeTtlSeconds must be 0 (off) or at least 5");
        }
        Path importDir = null;
        String importText = ipam.string("importHostLocal").orElse("");
        if (!importText.isEmpty()) {
            try {
                importDir = CallerPath.of(importText);
            } catch (java.nio.file.InvalidPathException e) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "cluster-ipam: ipam.importHostLocal: invalid"
                        + " path \"" + importText + "\"");
            }
        }
        EtcdConfig etcd = EtcdConfig.load(ipam);
        return new Config(ranges, new ClusterStore.Settings(node, v4, v6, ttl, List.copyOf(exclude), importDir),
                etcd);
    }

    @Override
    protected Ranges ranges(Config config) {
        return config.ranges();
    }

    @Override
    protected IpamStore open(Config config) {
        return ClusterStore.open(config.etcd(), config.ranges().network(), config.settings());
    }

    /** The pools the service's metrics report (the cluster's addresses allocated and capacity per network). */
    @Override
    protected void allocatedFrom(Config config, List<RangeSet> sets) {
        ClusterPool.seen(config, sets);
    }

    /** {@code nodeName}, else the request's {@code JCNI_NODE_NAME}, else the kernel's host name. */
    private static String nodeName(CniRequest request, ConfigNode ipam) throws CniException {
        String node = ipam.string("nodeName").orElse("");
        String source = ipam.path() + ".nodeName";
        if (node.isEmpty()) {
            node = request.env().getOrDefault(NODE_ENV, "");
            source = NODE_ENV;
        }
        if (node.isEmpty()) {
            source = "the host name";
            try {
                node = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "cluster-ipam: no nodeName, no "
                        + NODE_ENV + ", and the host name cannot be read: " + IoText.reason(e));
            }
        }
        if (!validNodeName(node)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "cluster-ipam: node name \"" + node + "\" (from "
                    + source + ") must match [A-Za-z0-9][A-Za-z0-9._-]* and be at most 253 characters");
        }
        return node;
    }

    static boolean validNodeName(String s) {
        return s.length() <= 253 && CniNames.isValidName(s);
    }

    /** Ready when etcd answers (and this node's liveness is refreshed): 50 otherwise. */
    @Override
    public void status(CniRequest request) throws CniException {
        Config config = load(request);
        try (ClusterStore store = ClusterStore.open(config.etcd(), config.ranges().network(), config.settings())) {
            store.heartbeat();
        } catch (IpamException e) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, e.getMessage());
        }
    }
}
