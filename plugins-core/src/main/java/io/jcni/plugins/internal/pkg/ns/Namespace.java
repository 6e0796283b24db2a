package io.jcni.plugins.internal.pkg.ns;

import io.jcni.netlink.Family;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Route;
import io.jcni.netlink.nft.Nftables;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.plugins.sdk.CallerNetns;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One network namespace as a plugin sees it: a netlink handle bound to it and its {@code /proc/sys/net}. Either the
 * <b>host</b> (the namespace the plugin runs in; what Go's plugins call {@code hostNS}), a <b>container</b> opened
 * from {@code CNI_NETNS}, or a namespace <b>borrowed</b> from a caller that keeps it open (tests stand a whole
 * "host" up in an anonymous namespace this way).
 *
 * <p>Sharp edges:
 * <ul>
 * <li>The handles are opened lazily on first use of {@link #nl()} (rtnetlink) and {@link #nft()} (nf_tables) and
 * closed by {@link #close()}.</li>
 * <li>Rollback steps run after the handler returned, when the handler's namespaces are closed: a step calls
 * {@link #reopen()} for a fresh object on the same namespace (by path for a container; the caller's {@link NetNs}
 * for a borrowed one, which must therefore outlive the rollback).</li>
 * <li>Sysctls of the host are read and written directly (no thread switch); those of any other namespace on a
 * thread switched into it, all of one {@link #exchangeSysctls} call in a single switch.</li>
 * </ul>
 * Not thread-safe; one call's worth of work.
 */
public final class Namespace implements AutoCloseable {
    private final String path;
    private final NetNs borrowed;
    private NetNs owned;
    private NetlinkHandle nl;
    private NftablesHandle nft;
    /** Where {@link #nft} was lent from ({@link HostNftables}), to be given back; null if it is this object's own. */
    private HostNftables.Keeper nftKeeper;

    private Namespace(String path, NetNs borrowed, NetNs owned) {
        this.path = path;
        this.borrowed = borrowed;
        this.owned = owned;
    }

    /** The namespace this plugin runs in. Nothing is opened until {@link #nl()}. */
    public static Namespace host() {
        return new Namespace("", null, null);
    }

    /**
     * The container's namespace at {@code path} (CNI_NETNS), opened now so that a bad path fails before any side
     * effect: code 8 (invalid netns) naming the path and the reason. When the call's caller handed the namespace over
     * ({@link CallerNetns}: jcni's plugin service), that is what opens.
     */
    public static Namespace container(String path) throws CniException {
        Optional<Namespace> ns = containerIfPresent(path);
        if (ns.isEmpty()) {
            throw new CniException(CniError.INVALID_NETNS, "failed to open netns \"" + path + "\": no such file",
                    "the network namespace does not exist (was the container already removed?)");
        }
        return ns.get();
    }

    /**
     * As {@link #container}, but empty when nothing exists at {@code path} (DEL after the namespace is gone); code 8
     * if something is there that is not a network namespace.
     */
    public static Optional<Namespace> containerIfPresent(String path) throws CniException {
        if (path.isEmpty()) {
            return Optional.empty();
        }
        Netlink.checkAvailable();
        try {
            Namespace container = new Namespace(path, null, CallerNetns.open(path));
            Timing.phase("netns");
            return Optional.of(container);
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw new CniException(CniError.INVALID_NETNS, "failed to open netns \"" + path + "\": " + e.getMessage());
        }
    }

    /** A namespace the caller keeps open for longer than this object and every {@link #reopen()} of it. */
    public static Namespace borrowing(NetNs netns) {
        return new Namespace(netns.path().toString(), netns, null);
    }

    /** A new object on the same namespace, for rollback steps (see the class comment). */
    public Namespace reopen() throws CniException {
        if (borrowed != null) {
            return borrowing(borrowed);
        }
        return path.isEmpty() ? host() : container(path);
    }

    /** As {@link #reopen()}, but empty when a container namespace has disappeared since (nothing left to undo). */
    public Optional<Namespace> reopenIfPresent() throws CniException {
        if (borrowed != null) {
            return Optional.of(borrowing(borrowed));
        }
        return path.isEmpty() ? Optional.of(host()) : containerIfPresent(path);
    }

    /** Whether this is the namespace the plugin runs in. */
    public boolean isHost() {
        return path.isEmpty();
    }

    /** CNI_NETNS for a container, the {@link NetNs} path for a borrowed namespace, "" for the host. */
    public String path() {
        return path;
    }

    /** The netlink handle bound to this namespace, opened on first use. */
    public NetlinkHandle nl() {
        if (nl == null) {
            NetNs ns = borrowed != null ? borrowed : owned;
            nl = ns == null ? Netlink.open() : Netlink.open(ns);
        }
        return nl;
    }

    /**
     * The nf_tables handle bound to this namespace, opened on first use: where the netfilter plugins (ipMasq,
     * macspoofchk, firewall, portmap) read and change the ruleset, always of the host. Opening fails with a
     * {@link NetlinkException} when the kernel has no nf_tables (see {@code pkg.nft.NftSteps#requireAvailable}).
     * The host's, under a host that keeps its sockets ({@link HostNftables}), is lent from there and given back by
     * {@link #close()}.
     */
    public NftablesHandle nft() {
        if (nft == null) {
            HostNftables.Keeper keeper = isHost() ? HostNftables.current() : null;
            if (keeper != null) {
                nft = keeper.take();
                nftKeeper = keeper;
            } else {
                NetNs ns = borrowed != null ? borrowed : owned;
                nft = ns == null ? Nftables.open() : Nftables.open(ns);
            }
        }
        return nft;
    }

    /**
     * {@code ip [-4|-6] route show table main}. A namespace that never had a route of the family has no main table
     * yet, and the kernel answers the dump with ENOENT ("FIB table does not exist"): that is an empty table here.
     */
    public List<Route> mainRoutes(Family family) {
        try {
            return nl().routes(family);
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return List.of();
            }
            throw e;
        }
    }

    /**
     * The namespace's descriptor (e.g. for {@code LinkAttrs.netns}); for the host, {@code /proc/thread-self/ns/net}
     * opened on first use.
     */
    public NetNs netns() {
        if (borrowed != null) {
            return borrowed;
        }
        if (owned == null) {
            owned = NetNs.current();
        }
        return owned;
    }

    /** {@code sysctl -n KEY} in this namespace. */
    public String sysctl(String key) {
        if (isHost()) {
            return Sysctl.read(key);
        }
        return Sysctl.read(netns(), key);
    }

    /** {@code sysctl -w KEY=VALUE} in this namespace. */
    public void sysctl(String key, String value) {
        if (isHost()) {
            Sysctl.write(key, value);
        } else {
            Sysctl.write(netns(), key, value);
        }
    }

    /**
     * Applies the writes in order, in one switch into the namespace, and returns what each key held before (null
     * where nothing was written: the key already had the value, or it is missing and not required). All or nothing,
     * as far as the kernel lets: on a failure the writes already made are restored before the failure is thrown.
     */
    public List<String> exchangeSysctls(List<SysctlWrite> writes) {
        SysctlBatch batch = new SysctlBatch(writes);
        if (isHost()) {
            return batch.run();
        }
        return netns().call(batch);
    }

    @Override
    public void close() {
        try {
            if (nl != null) {
                nl.close();
            }
        } finally {
            if (nft != null && nftKeeper != null) {
                nftKeeper.give(nft);
            } else if (nft != null) {
                nft.close();
            }
            nl = null;
            nft = null;
            nftKeeper = null;
            if (owned != null) {
                owned.close();
                owned = null;
            }
        }
    }

    @Override
    public String toString() {
        return isHost() ? "host namespace" : "netns " + path;
    }

    /** One sysctl write of {@link #exchangeSysctls}; {@code required} false tolerates a missing key (no IPv6). */
    public record SysctlWrite(String key, String value, boolean required) {
    }

    /** Runs in the namespace (a named class: no lambdas on the plugin start-up path). */
    private static final class SysctlBatch implements NetNs.Task<List<String>, RuntimeException> {
        private final List<SysctlWrite> writes;

        SysctlBatch(List<SysctlWrite> writes) {
            this.writes = writes;
        }

        @Override
        public List<String> run() {
            List<String> previous = new ArrayList<>(writes.size());
            try {
                for (SysctlWrite write : writes) {
                    previous.add(exchange(write));
                }
            } catch (RuntimeException e) {
                for (int i = previous.size() - 1; i >= 0; i--) {
                    if (previous.get(i) != null) {
                        try {
                            Sysctl.write(writes.get(i).key(), previous.get(i));
                        } catch (RuntimeException ignored) {
                            e.addSuppressed(ignored);
                        }
                    }
                }
                throw e;
            }
            return previous;
        }

        private static String exchange(SysctlWrite write) {
            String old;
            try {
                old = Sysctl.read(write.key());
            } catch (KernelException e) {
                if (!write.required() && e.isNotFound()) {
                    return null;
                }
                throw e;
            }
            if (old.equals(write.value())) {
                return null;
            }
            Sysctl.write(write.key(), write.value());
            return old;
        }
    }
}
