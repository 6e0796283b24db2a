package io.jcni.plugins.internal.net;

import io.jcni.netlink.IpPrefix;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.net.Namespace.SysctlWrite;
import io.jcni.plugins.sdk.Rollback;
import java.util.List;
import java.util.Optional;

/**
 * Rollback steps shared by the interface plugins. Named classes rather than lambdas (plugin start-up path). Each
 * opens its namespace anew ({@link Namespace#reopen()}): steps run after the handler has returned and closed its own,
 * possibly after the skel failed to print the result. Each tolerates its effect being gone already, a container namespace included.
 */
public final class Undos {
    private Undos() {
    }

    /** {@code ip link del NAME} in the namespace; a link already gone is fine. Deletes both ends of a veth. */
    public static final class DeleteLink implements Rollback.Undo {
        private final Namespace ns;
        private final String name;

        public DeleteLink(Namespace ns, String name) {
            this.ns = ns;
            this.name = name;
        }

        @Override
        public void undo() throws Exception {
            Optional<Namespace> again = ns.reopenIfPresent();
            if (again.isEmpty()) {
                return;
            }
            try (Namespace open = again.get()) {
                open.nl().deleteLink(name);
            } catch (NetlinkException e) {
                if (!e.isNotFound()) {
                    throw e;
                }
            }
        }
    }

    /** {@code ip addr del PREFIX dev LINK}; link or address already gone is fine. */
    public static final class DeleteAddress implements Rollback.Undo {
        private final Namespace ns;
        private final String link;
        private final IpPrefix prefix;

        public DeleteAddress(Namespace ns, String link, IpPrefix prefix) {
            this.ns = ns;
            this.link = link;
            this.prefix = prefix;
        }

        @Override
        public void undo() throws Exception {
            Optional<Namespace> again = ns.reopenIfPresent();
            if (again.isEmpty()) {
                return;
            }
            try (Namespace open = again.get()) {
                Optional<Link> found = open.nl().findLink(link);
                if (found.isPresent()) {
                    open.nl().deleteAddress(found.get().index(), prefix);
                }
            } catch (NetlinkException e) {
                if (!e.isNotFound()) {
                    throw e;
                }
            }
        }
    }

    /** Writes back sysctl values an ADD changed; keys gone with their link are skipped. */
    public static final class RestoreSysctls implements Rollback.Undo {
        private final Namespace ns;
        private final List<SysctlWrite> restore;

        public RestoreSysctls(Namespace ns, List<SysctlWrite> restore) {
            this.ns = ns;
            this.restore = List.copyOf(restore);
        }

        @Override
        public void undo() throws Exception {
            Optional<Namespace> again = ns.reopenIfPresent();
            if (again.isEmpty()) {
                return;
            }
            try (Namespace open = again.get()) {
                open.exchangeSysctls(restore);
            }
        }
    }
}
