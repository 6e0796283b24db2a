package io.jcni.plugins.internal.pkg.ns;

import io.jcni.netlink.nft.Nftables;
import io.jcni.netlink.nft.NftablesHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * nf_tables sockets of the host namespace that a long-lived host (the plugin service) keeps open from one call to the
 * next, lent to the calls it runs: {@link Namespace#nft()} of the host takes one from the {@link Keeper} the thread's
 * call runs under and {@link Namespace#close()} gives it back, instead of opening and closing a socket per call.
 *
 * <p>Why: when a {@code NETLINK_NETFILTER} socket is released, the kernel first finishes destroying what every commit
 * so far left to destroy ({@code nft_rcv_nl_event}: {@code nf_tables_trans_destroy_flush_work}, which waits for an RCU
 * grace period), and does so holding the namespace's nf_tables commit mutex. After any commit that is several
 * milliseconds per close, and every transaction of the namespace, of every call, waits behind it: a burst of pods
 * whose bridge (ipMasq), portmap and firewall calls each closed a socket ran their nftables work one grace period at
 * a time. An exec'd plugin pays it once, when it exits; a host that keeps its sockets does not pay it per call.
 *
 * <p>Sharp edges: the keeper is found through a thread-local that the host sets around a call ({@link Keeper#enter});
 * set it only on a thread in the namespace the keeper's sockets were opened in (the host's own), since a socket stays
 * in the namespace it was made in. A socket is handed to one call at a time; what a call left unread on it is drained
 * by the next request ({@code Channel}), as between two requests of one call. A keeper holds at most its
 * {@code maxIdle} idle sockets (the rest are closed when given back) and closes them all when it is closed.
 */
public final class HostNftables {
    private static final ThreadLocal<Keeper> CURRENT = new ThreadLocal<>();

    private HostNftables() {
    }

    /** The keeper the call on this thread runs under, or null (then sockets are opened and closed per use). */
    static Keeper current() {
        return CURRENT.get();
    }

    /** The idle sockets of one host's namespace. Thread-safe. */
    public static final class Keeper implements AutoCloseable {
        private final int maxIdle;
        private final ArrayDeque<NftablesHandle> idle = new ArrayDeque<>();
        private boolean closed;

        /** Keeps up to {@code maxIdle} idle sockets. */
        public Keeper(int maxIdle) {
            this.maxIdle = maxIdle;
        }

        /** An idle socket, else a new one in the calling thread's namespace. */
        NftablesHandle take() {
            synchronized (this) {
                NftablesHandle h = idle.pollFirst();
                if (h != null) {
                    return h;
                }
            }
            return Nftables.open();
        }

        /** A socket a call is done with: kept for the next one, or closed when enough are idle. */
        void give(NftablesHandle h) {
            synchronized (this) {
                if (!closed && idle.size() < maxIdle) {
                    idle.addFirst(h);
                    return;
                }
            }
            h.close();
        }

        /** Idle sockets now (for tests). */
        synchronized int idle() {
            return idle.size();
        }

        /**
         * Until the scope is closed, the host {@link Namespace}s made on this thread lend their nf_tables socket from
         * this keeper.
         */
        public Scope enter() {
            Scope scope = new Scope(CURRENT.get());
            CURRENT.set(this);
            return scope;
        }

        /** Closes the idle sockets; sockets given back later are closed then. */
        @Override
        public void close() {
            List<NftablesHandle> all;
            synchronized (this) {
                closed = true;
                all = new ArrayList<>(idle);
                idle.clear();
            }
            for (NftablesHandle h : all) {
                h.close();
            }
        }
    }

    /** One call's use of a keeper on its thread; closing it restores what was current before. */
    public static final class Scope implements AutoCloseable {
        private final Keeper outer;

        private Scope(Keeper outer) {
            this.outer = outer;
        }

        @Override
        public void close() {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }
}
