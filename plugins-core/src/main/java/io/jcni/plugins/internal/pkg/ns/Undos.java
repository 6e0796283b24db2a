package io.jcni.plugins.internal.pkg.ns;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.plugins.internal.pkg.ns.Namespace.SysctlWrite;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.spec.IpPrefix;
import java.util.List;
import java.util.Optional;

/**
 * Rollback steps shared by the interface plugins, and {@link InNamespace}, the frame of every step that works in a
 * {@link Namespace} (plugins' own steps extend it too). Named classes rather than lambdas (plugin start-up path). Each
 * opens its namespace anew: steps run after the handler has returned and closed its own, possibly after the skel
 * failed to print the result. Each tolerates its effect being gone already, a container namespace included.
 */
public final class Undos {
    private Undos() {
    }

    /**
     * The frame every step here shares: its namespace reopened ({@link Namespace#reopenIfPresent()}: a container's
     * that is gone leaves nothing to undo), the step {@linkplain #apply applied} in it, the namespace closed. A
     * {@link KernelException} that the step {@linkplain #tolerates tolerates} (its effect already gone) is success;
     * any other failure goes to the rollback, which logs it and runs the other steps.
     */
    public abstract static class InNamespace implements Rollback.Undo {
        private final Namespace ns;

        protected InNamespace(Namespace ns) {
            this.ns = ns;
        }

        @Override
        public final void undo() throws Exception {
            Optional<Namespace> again = ns.reopenIfPresent();
            if (again.isEmpty()) {
                return;
            }
            try (Namespace open = again.get()) {
                apply(open);
            } catch (KernelException e) {
                if (!tolerates(e)) {
                    throw e;
                }
            }
        }

        /** The step itself, in the reopened namespace (closed afterwards). */
        protected abstract void apply(Namespace open) throws Exception;

        /** Whether {@code e}, thrown by {@link #apply} or the closing, means there is nothing left to undo. */
        protected boolean tolerates(KernelException e) {
            return false;
        }
    }

    /** {@code ip link del NAME} in the namespace; a link already gone is fine. Deletes both ends of a veth. */
    public static final class DeleteLink extends InNamespace {
        private final String name;

        public DeleteLink(Namespace ns, String name) {
            super(ns);
            this.name = name;
        }

        @Override
        protected void apply(Namespace open) {
            open.nl().deleteLink(name);
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isNotFound();
        }
    }

    /** {@code ip addr del PREFIX dev LINK}; link or address already gone is fine. */
    public static final class DeleteAddress extends InNamespace {
        private final String link;
        private final IpPrefix prefix;

        public DeleteAddress(Namespace ns, String link, IpPrefix prefix) {
            super(ns);
            this.link = link;
            this.prefix = prefix;
        }

        @Override
        protected void apply(Namespace open) {
            Optional<Link> found = open.nl().findLink(link);
            if (found.isPresent()) {
                open.nl().deleteAddress(found.get().index(), prefix.address(), prefix.prefixLength());
            }
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isNotFound();
        }
    }

    /** Writes back sysctl values an ADD changed; keys gone with their link are skipped. */
    public static final class RestoreSysctls extends InNamespace {
        private final List<SysctlWrite> restore;

        public RestoreSysctls(Namespace ns, List<SysctlWrite> restore) {
            super(ns);
            this.restore = List.copyOf(restore);
        }

        @Override
        protected void apply(Namespace open) {
            open.exchangeSysctls(restore);
        }
    }
}
