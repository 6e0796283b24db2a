package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.IpamFields;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamStore;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeIpamPlugin;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.sdk.CallerPath;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code host-local} IPAM plugin: allocates addresses from configured ranges and records them under
 * {@code <dataDir>/<network>} in Go host-local's on-disk format (the engine is {@link HostLocalStore}; the
 * plugin's shape and allocation rules come from {@code pkg.ipam.ranges}, shared with cluster-ipam).
 *
 * <p>Configuration ({@code ipam}), as Go's: {@code ranges} (a list of range sets, each a list of {@code {"subnet",
 * "rangeStart", "rangeEnd", "gateway"}}; one address is allocated per range set, so a v4 and a v6 set give a
 * dual-stack attachment); the legacy single range at the top level ({@code subnet}, {@code rangeStart}, {@code
 * rangeEnd}, {@code gateway}), placed first; {@code routes}; {@code dataDir} (default {@code /var/lib/cni/networks});
 * {@code resolvConf} (a resolv.conf whose nameserver, domain, search and options lines become the result's DNS).
 * Range sets from the {@code ipRanges} capability ({@code runtimeConfig.ipRanges}) come first. Specific addresses
 * are requested with CNI_ARGS {@code IP}, {@code args.cni.ips} and the {@code ips} capability ({@code
 * runtimeConfig.ips}), each as an address or a CIDR (whose address part counts).
 *
 * <p>Differences from Go host-local 1.1.1 (besides the engine's, see its package documentation): a repeated ADD of
 * the same (container, interface) returns the addresses it already holds instead of failing; GC (1.1.0) releases
 * reservations of attachments not in {@code cni.dev/valid-attachments}; STATUS reports code 50 when the data directory
 * cannot be written. Error codes follow the spec where Go returns untyped errors (999): 7 for configuration, 4 for
 * CNI_ARGS, 5 for data directory failures; allocation failures stay 999 with Go's messages.
 */
public final class HostLocalPlugin extends RangeIpamPlugin<HostLocalPlugin.Config> {
    /** Go host-local's default data directory. */
    static final String DEFAULT_DATA_DIR = "/var/lib/cni/networks";

    /** The configuration after every override. */
    record Config(Ranges ranges, Path dataDir) {
    }

    public HostLocalPlugin() {
        super("host-local", "store");
    }

    @Override
    protected Config load(CniRequest request) throws CniException {
        Ranges ranges = Ranges.load(request);
        ConfigNode ipam = IpamFields.ipam(request.config());
        String dataDirText = ipam.string("dataDir").orElse("");
        Path dataDir;
        try {
            dataDir = CallerPath.of(dataDirText.isEmpty() ? DEFAULT_DATA_DIR : dataDirText);
        } catch (InvalidPathException e) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "ipam.dataDir: invalid path \"" + dataDirText
                    + "\"");
        }
        return new Config(ranges, dataDir);
    }

    @Override
    protected Ranges ranges(Config config) {
        return config.ranges();
    }

    @Override
    protected IpamStore open(Config config) throws IpamException {
        return HostLocalStore.open(config.dataDir(), config.ranges().network());
    }

    /** The pools the service's metrics report (addresses allocated and capacity per network). */
    @Override
    protected void allocatedFrom(Config config, List<RangeSet> sets) {
        HostLocalPool.seen(config.dataDir(), config.ranges().network(), sets);
    }

        /** Ready when the network's data directory can be created and written: 50 otherwise. */
    @Override
    public void status(CniRequest request) throws CniException {
        Config config = load(request);
        Path dir = config.dataDir().resolve(config.ranges().network());
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "host-local: cannot create " + dir + ": "
                    + IoText.reason(e));
        } catch (SecurityException e) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "host-local: cannot create " + dir + ": "
                    + e.getMessage());
        }
        if (!Files.isWritable(dir)) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "host-local: " + dir + " is not writable");
        }
    }
}
