package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.plugins.internal.pkg.ipam.IpamFields;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.IpConfig;
import io.jcni.spec.Json;
import io.jcni.spec.JsonNull;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one shape of a range-IPAM plugin (host-local, cluster-ipam): ADD, DEL, CHECK and GC over an {@link IpamStore},
 * with the range syntax of {@link RangeConfig}. A plugin names itself, reads its own part of the configuration and
 * opens its store; STATUS is its own.
 *
 * @param <C> the plugin's configuration after every override
 */
public abstract class RangeIpamPlugin<C> implements CniPlugin {

    /** What every range-IPAM plugin reads from its {@code ipam} section and the request. */
    public record Ranges(String network, List<List<RangeSpec>> rangeSets, List<IpAddress> requested,
            List<Route> routes, String resolvConf) {

        /** The ranges, requested addresses, routes and {@code resolvConf} of {@code request}. */
        public static Ranges load(CniRequest request) throws CniException {
            PluginConfig config = request.config();
            ConfigNode ipam = IpamFields.ipam(config);
            List<IpAddress> requested = RangeConfig.requested(request);
            List<List<RangeSpec>> sets = RangeConfig.rangeSets(config, ipam);
            return new Ranges(config.requireName(), sets, requested, IpamFields.routes(ipam),
                    ipam.string("resolvConf").orElse(""));
        }
    }

    private final String type;
    private final String storePhase;

    /**
     * @param type the plugin type, as its error texts start ("host-local")
     * @param storePhase the name of the store's phase in a debug timing line ("etcd")
     */
    protected RangeIpamPlugin(String type, String storePhase) {
        this.type = type;
        this.storePhase = storePhase;
    }

    /** The plugin's configuration of {@code request} (code 7 for what it refuses). */
    protected abstract C load(CniRequest request) throws CniException;

    /** The range part of {@code config}. */
    protected abstract Ranges ranges(C config);

    /** The store of {@code config}'s network; one per call (or per rollback step). */
    protected abstract IpamStore open(C config) throws IpamException;

    /**
     * Called after each ADD's allocation, whether it succeeded or not, with the ranges it allocated from: a plugin
     * that reports its pools' use (host-local, for the service's metrics) notes them here. Does nothing by default.
     */
    protected void allocatedFrom(C config, List<RangeSet> sets) {
    }

    // ------------------------------------------------------------------------------------------ verbs

    @Override
    public final CniResult add(CniRequest request) throws CniException {
        C config = load(request);
        Ranges ranges = ranges(config);
        List<RangeSet> sets = RangeConfig.canonical(ranges.rangeSets(), request.cniVersion());
        Dns dns = ranges.resolvConf().isEmpty() ? Dns.EMPTY : ResolvConf.read(ranges.resolvConf());
        Timing.phase("config");
        Attachment who = attachment(request);
        List<Allocation> allocations;
        try (IpamStore store = open(config)) {
            allocations = store.allocate(who, sets, ranges.requested(), OnExisting.REUSE);
        } catch (IpamException e) {
            throw RangeConfig.failure(e);
        } finally {
            allocatedFrom(config, sets);
        }
        Timing.phase(storePhase);
        List<IpConfig> ips = Allocation.ipConfigs(allocations);
        // (The description avoids the records' toString: its ObjectMethods bootstrap costs milliseconds at start-up.)
        if (Allocation.allNew(allocations)) {
            request.rollback().onFailure("release the addresses of " + request.containerId() + "/" + request.ifName(),
                    new Release<>(this, config, who));
        }
        return new Result(List.of(), ips, ranges.routes(), dns);
    }

    @Override
    public final void del(CniRequest request) throws CniException {
        C config = load(request);
        try (IpamStore store = open(config)) {
            store.release(attachment(request));
        } catch (IpamException e) {
            throw RangeConfig.failure(e);
        }
    }

    @Override
    public final void check(CniRequest request) throws CniException {
        C config = load(request);
        List<Reservation> found;
        try (IpamStore store = open(config)) {
            found = store.find(attachment(request));
        } catch (IpamException e) {
            throw RangeConfig.failure(e);
        }
        if (found.isEmpty()) {
            throw new CniException(CniError.INTERNAL,
                    type + ": Failed to find address added by container " + request.containerId());
        }
    }

    @Override
    public final void gc(CniRequest request) throws CniException {
        C config = load(request);
        requireValidAttachments(request.config());
        List<Attachment> valid = new ArrayList<>();
        for (GcAttachment attachment : request.config().validAttachments()) {
            valid.add(new Attachment(attachment.containerId(), attachment.ifName()));
        }
        List<Reservation> released;
        try (IpamStore store = open(config)) {
            released = store.gc(valid);
        } catch (IpamException e) {
            throw RangeConfig.failure(e);
        }
        if (request.log().debugEnabled()) {
            for (Reservation reservation : released) {
                request.log().debug("GC released " + reservation.address() + " of \"" + reservation.containerId()
                        + "\"");
            }
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    /**
     * GC releases what is not in {@code cni.dev/valid-attachments}, so the key must be there: a GC without it (a
     * runtime that forgot it, a hand-written call) would otherwise read as "nothing is valid" and release every
     * reservation of the network. Refused with code 7 before the store is touched. An empty list is a valid answer.
     */
    private void requireValidAttachments(PluginConfig config) throws CniException {
        if (present(config, PluginConfig.VALID_ATTACHMENTS) || present(config, PluginConfig.LEGACY_ATTACHMENTS)) {
            return;
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "GC needs " + PluginConfig.VALID_ATTACHMENTS,
                "without the list of attachments that are still valid, " + type + " cannot tell what to release;"
                        + " nothing was released");
    }

    private static boolean present(PluginConfig config, String key) {
        Optional<Json> value = config.get(key);
        return value.isPresent() && !(value.get() instanceof JsonNull);
    }

    private static Attachment attachment(CniRequest request) {
        return new Attachment(request.containerId(), request.ifName());
    }

    /** Rollback step of ADD (a named class: no lambdas on the start-up path). */
    private static final class Release<C> implements Rollback.Undo {
        private final RangeIpamPlugin<C> plugin;
        private final C config;
        private final Attachment who;

        Release(RangeIpamPlugin<C> plugin, C config, Attachment who) {
            this.plugin = plugin;
            this.config = config;
            this.who = who;
        }

        @Override
        public void undo() throws IpamException {
            try (IpamStore store = plugin.open(config)) {
                store.release(who);
            }
        }
    }
}
