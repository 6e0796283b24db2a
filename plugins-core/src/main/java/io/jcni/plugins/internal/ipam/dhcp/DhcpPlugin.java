package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.plugins.internal.pkg.ipam.IpamFields;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpText;
import io.jcni.spec.JsonObject;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import java.util.List;
import java.util.Optional;

/**
 * The {@code dhcp} IPAM plugin: asks the dhcp daemon ({@code dhcp daemon}, {@link LeaseManager}) for a lease on the
 * container's interface and returns it, as Go's {@code dhcp} plugin does with Go's daemon; the daemon keeps the lease
 * renewed until DEL. The interface must exist in CNI_NETNS when ADD runs (an interface plugin delegates after making
 * it); the daemon brings it up if it is down.
 *
 * <p>Configuration ({@code ipam}): {@code daemonSocketPath}, {@code provide}, {@code request}, {@code priority} (see
 * {@link DhcpConfig}). The hostname Kubernetes users expect is Go's recipe: {@code "provide": [{"option":
 * "host-name", "fromArg": "K8S_POD_NAME"}]}. The result: the leased address with the subnet's prefix length and the
 * first router as gateway, the routes of options 121, or 33 and 3, and (unlike Go's) the DNS servers, domain and
 * search list the server sent.
 *
 * <p>Verbs: DEL releases the lease (DHCPRELEASE) and succeeds when there is none; CHECK fails when the daemon holds
 * no bound lease for the attachment or, given a prevResult, when it does not hold the lease's address (Go's CHECK asks
 * its daemon to allocate again); GC releases the network's leases of attachments not in
 * {@code cni.dev/valid-attachments} (refused with code 7 without that key); STATUS is code 50 when the daemon does
 * not answer. A daemon that cannot be reached fails ADD, CHECK, DEL and GC with code 11: it holds the leases, so
 * nothing can be said about them until it is back. Config errors are code 7 with Go's messages.
 */
public final class DhcpPlugin implements CniPlugin {
    /** How long a call waits for the daemon: more than its default resend timeout (208 s). */
    static final long CALL_MILLIS = 300_000;
    /** How long STATUS waits. */
    static final long STATUS_MILLIS = 10_000;

    @Override
    public CniResult add(CniRequest request) throws CniException {
        DhcpConfig config = load(request);
        config.prepare(request.cniArgsText()); // refuses what the daemon would refuse, before it runs
        String netns = absoluteNetns(request.netns());
        Optional<CniResult> result = call(config, request, DaemonProtocol.ADD, netns, null, CALL_MILLIS);
        if (result.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "the dhcp daemon answered ADD without a result");
        }
        request.rollback().onFailure("release the DHCP lease of " + request.containerId() + "/" + request.ifName(),
                new Release(this, request));
        return result.get();
    }

    @Override
    public void del(CniRequest request) throws CniException {
        call(load(request), request, DaemonProtocol.DEL, request.netns(), null, CALL_MILLIS);
    }

    @Override
    public void check(CniRequest request) throws CniException {
        DhcpConfig config = load(request);
        Optional<CniResult> held = call(config, request, DaemonProtocol.CHECK, request.netns(), null, CALL_MILLIS);
        Optional<CniResult> previous = request.config().prevResult();
        if (held.isEmpty() || previous.isEmpty()) {
            return;
        }
        for (IpConfig lease : Result.from(held.get()).ips()) {
            boolean found = false;
            for (IpConfig ip : Result.from(previous.get()).ips()) {
                found |= ip.address().address().equals(lease.address().address());
            }
            if (!found) {
                throw new CniException(CniError.FIRST_PLUGIN_SPECIFIC, "dhcp: the lease of "
                        + request.ifName() + " is " + IpText.format(lease.address().address())
                        + ", which prevResult does not hold");
            }
        }
    }

    @Override
    public void gc(CniRequest request) throws CniException {
        PluginConfig config = request.config();
        if (config.get(PluginConfig.VALID_ATTACHMENTS).isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "GC without " + PluginConfig.VALID_ATTACHMENTS
                    + ": refusing to release every lease of network " + config.name());
        }
        call(load(request), request, DaemonProtocol.GC, "", config.validAttachments(), CALL_MILLIS);
    }

    @Override
    public void status(CniRequest request) throws CniException {
        DhcpConfig config = load(request);
        try {
            DaemonClient.call(config.daemonSocketPath(), DaemonProtocol.request(DaemonProtocol.STATUS,
                    request.config().name(), "", "", "", "", JsonObject.EMPTY, null), STATUS_MILLIS);
        } catch (DaemonClient.Unreachable e) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "dhcp daemon not reachable at "
                    + config.daemonSocketPath() + ": " + e.getMessage(), "start it with: dhcp daemon");
        } catch (CniException e) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "dhcp daemon at " + config.daemonSocketPath()
                    + " is not ready: " + e.error().msg());
        }
    }

    private static DhcpConfig load(CniRequest request) throws CniException {
        request.config().requireName();
        DhcpConfig config = DhcpConfig.of(IpamFields.ipam(request.config()));
        Timing.phase("config");
        return config;
    }

    /** The daemon may run with another working directory, so it gets an absolute path (Go makes it one). */
    private static String absoluteNetns(String netns) throws CniException {
        if (!netns.startsWith("/")) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "CNI_NETNS must be an absolute path for"
                    + " the dhcp daemon: " + netns);
        }
        return netns;
    }

    private static Optional<CniResult> call(DhcpConfig config, CniRequest request, String command, String netns,
            List<GcAttachment> valid, long millis) throws CniException {
        JsonObject ipam = request.config().ipam().orElse(JsonObject.EMPTY);
        JsonObject message = DaemonProtocol.request(command, request.config().requireName(), request.containerId(),
                netns, request.ifName(), request.cniArgsText(), ipam, valid);
        try {
            return DaemonClient.call(config.daemonSocketPath(), message, millis);
        } catch (DaemonClient.Unreachable e) {
            throw new CniException(CniError.TRY_AGAIN_LATER, "error dialing DHCP daemon at "
                    + config.daemonSocketPath() + ": " + e.getMessage(), "is the dhcp daemon running? (dhcp daemon)");
        }
    }

    /** ADD's undo: DEL through the daemon. A named class, not a lambda (start-up path). */
    private static final class Release implements Rollback.Undo {
        private final DhcpPlugin plugin;
        private final CniRequest request;

        Release(DhcpPlugin plugin, CniRequest request) {
            this.plugin = plugin;
            this.request = request;
        }

        @Override
        public void undo() throws CniException {
            plugin.del(request);
        }
    }
}
