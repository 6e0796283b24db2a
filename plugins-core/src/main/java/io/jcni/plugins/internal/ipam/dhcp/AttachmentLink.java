package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.Link;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.spec.CniException;
import java.util.Optional;

/**
 * The link a lease belongs to, found again for one piece of work (an exchange, a release): the namespace opened by
 * path, the link looked up by name. A lease outlives any one opening, so it is checked to be the same link: the
 * namespace's identity (a {@code /proc/PID/ns/net} path may name another namespace once the process is gone) and the
 * link's hardware address (a new container interface of the same name is not the leased one).
 */
final class AttachmentLink implements AutoCloseable {
    final Namespace namespace;
    final Link link;

    private AttachmentLink(Namespace namespace, Link link) {
        this.namespace = namespace;
        this.link = link;
    }

    /**
     * Opens {@code path} and finds {@code ifName} there; empty when the namespace or the link is gone or is not the
     * lease's any more ({@code expectedId}, {@code expectedMac}; null skips a check).
     *
     * @throws CniException code 8 if {@code path} exists but is not a network namespace
     */
    static Optional<AttachmentLink> find(String path, NetNs.Id expectedId, String ifName, MacAddress expectedMac)
            throws CniException {
        Optional<Namespace> opened = Namespace.containerIfPresent(path);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        Namespace namespace = opened.get();
        try {
            if (expectedId != null && !namespace.netns().id().equals(expectedId)) {
                namespace.close();
                return Optional.empty();
            }
            Optional<Link> link = namespace.nl().findLink(ifName);
            if (link.isEmpty() || (expectedMac != null && !expectedMac.equals(link.get().address()))) {
                namespace.close();
                return Optional.empty();
            }
            return Optional.of(new AttachmentLink(namespace, link.get()));
        } catch (RuntimeException e) {
            namespace.close();
            throw e;
        }
    }

    NetNs netns() {
        return namespace.netns();
    }

    @Override
    public void close() {
        namespace.close();
    }
}
