package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.IpamFields;
import io.jcni.plugins.sdk.CallerPath;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpText;
import io.jcni.spec.Json;
import io.jcni.spec.JsonNull;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code host-local} IPAM plugin: allocates addresses from configured ranges and records them under
 * {@code <dataDir>/<network>} in Go host-local's on-disk format (the engine is {@link HostLocalStore}).
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
public final class HostLocalPlugin implements CniPlugin {
    /** Go host-local's default data directory. */
    static final String DEFAULT_DATA_DIR = "/var/lib/cni/networks";

    /** The configuration after every override. */
    record Config(String network, List<List<RangeSpec>> rangeSets, List<IpAddress> requested, List<Route> routes,
            Path dataDir, String resolvConf) {
    }

    static Config load(CniRequest request) throws CniException {
        PluginConfig config = request.config();
        ConfigNode ipam = IpamFields.ipam(config);
        List<IpAddress> requested = RangeConfig.requested(request);
        List<List<RangeSpec>> sets = RangeConfig.rangeSets(config, ipam);

        String dataDirText = ipam.string("dataDir").orElse("");
        Path dataDir;
        try {
            dataDir = CallerPath.of(dataDirText.isEmpty() ? DEFAULT_DATA_DIR : dataDirText);
        } catch (InvalidPathException e) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "ipam.dataDir: invalid path \"" + dataDirText
                    + "\"");
        }
        return new Config(config.requireName(), sets, requested, IpamFields.routes(ipam),
                dataDir, ipam.string("resolvConf").orElse(""));
    }

    /** The canonical range sets: Go's checks, and at most one address per family before 0.3.0. */
    private static List<RangeSet> canonical(Config config, CniVersion version) throws CniException {
        return RangeConfig.canonical(config.rangeSets(), version);
    }

    // ------------------------------------------------------------------------------------------ verbs

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config config = load(request);
        List<RangeSet> sets = canonical(config, request.cniVersion());
        Dns dns = config.resolvConf().isEmpty() ? Dns.EMPTY : ResolvConf.read(config.resolvConf());
        Attachment who = attachment(request);
        List<Allocation> allocations;
        try (HostLocalStore store = HostLocalStore.open(config.dataDir(), config.network())) {
            allocations = store.allocate(who, sets, config.requested(), OnExisting.REUSE);
        } catch (IpamException e) {
            throw failure(e);
        } finally {
            IpamPools.seen(config.dataDir(), config.network(), sets);
        }
        List<IpConfig> ips = Allocation.ipConfigs(allocations);
        // (The description avoids the records' toString: its ObjectMethods bootstrap costs milliseconds at start-up.)
        if (Allocation.allNew(allocations)) {
            request.rollback().onFailure("release the addresses of " + request.containerId() + "/" + request.ifName(),
                    new Release(config, who));
        }
        return new Result(List.of(), ips, config.routes(), dns);
    }

    @Override
    public void del(CniRequest request) throws CniException {
        Config config = load(request);
        try (HostLocalStore store = HostLocalStore.open(config.dataDir(), config.network())) {
            store.release(attachment(request));
        } catch (IpamException e) {
            throw failure(e);
        }
    }

    @Override
    public void check(CniRequest request) throws CniException {
        Config config = load(request);
        List<Reservation> found;
        try (HostLocalStore store = HostLocalStore.open(config.dataDir(), config.network())) {
            found = store.find(attachment(request));
        } catch (IpamException e) {
            throw failure(e);
        }
        if (found.isEmpty()) {
            throw new CniException(CniError.INTERNAL,
                    "host-local: Failed to find address added by container " + request.containerId());
        }
    }

    @Override
    public void gc(CniRequest request) throws CniException {
        Config config = load(request);
        requireValidAttachments(request.config());
        List<Attachment> valid = new ArrayList<>();
        for (GcAttachment attachment : request.config().validAttachments()) {
            valid.add(new Attachment(attachment.containerId(), attachment.ifName()));
        }
        List<Reservation> released;
        try (HostLocalStore store = HostLocalStore.open(config.dataDir(), config.network())) {
            released = store.gc(valid);
        } catch (IpamException e) {
            throw failure(e);
        }
        if (request.log().debugEnabled()) {
            for (Reservation reservation : released) {
                request.log().debug("GC released " + reservation.address() + " of \"" + reservation.containerId()
                        + "\"");
            }
        }
    }

    @Override
    public void status(CniRequest request) throws CniException {
        Config config = load(request);
        Path dir = config.dataDir().resolve(config.network());
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

    // ------------------------------------------------------------------------------------------ helpers

    /**
     * GC releases what is not in {@code cni.dev/valid-attachments}, so the key must be there: a GC without it (a
     * runtime that forgot it, a hand-written call) would otherwise read as "nothing is valid" and release every
     * reservation of the network. Refused with code 7 before the store is touched. An empty list is a valid answer.
     */
    private static void requireValidAttachments(PluginConfig config) throws CniException {
        if (present(config, PluginConfig.VALID_ATTACHMENTS) || present(config, PluginConfig.LEGACY_ATTACHMENTS)) {
            return;
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "GC needs " + PluginConfig.VALID_ATTACHMENTS,
                "without the list of attachments that are still valid, host-local cannot tell what to release;"
                        + " nothing was released");
    }

    private static boolean present(PluginConfig config, String key) {
        Optional<Json> value = config.get(key);
        return value.isPresent() && !(value.get() instanceof JsonNull);
    }

    private static Attachment attachment(CniRequest request) {
        return new Attachment(request.containerId(), request.ifName());
    }

    static CniException failure(IpamException e) {
        return RangeConfig.failure(e);
    }

    /** Rollback step of ADD (a named class: no lambdas on the start-up path). */
    private static final class Release implements Rollback.Undo {
        private final Config config;
        private final Attachment who;

        Release(Config config, Attachment who) {
            this.config = config;
            this.who = who;
        }

        @Override
        public void undo() throws IpamException {
            try (HostLocalStore store = HostLocalStore.open(config.dataDir(), config.network())) {
                store.release(who);
            }
        }
    }
}
