package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.NetNs;

/**
 * Opens a netlink socket of one protocol as a {@link NetNs.Task}: run by {@link NetNs#call} on a thread inside the
 * namespace, so the socket is bound to that namespace for its whole life. A named class rather than a lambda: no
 * invokedynamic bootstrap on a plugin's start-up path.
 */
public final class OpenSocket implements NetNs.Task<NetlinkSocket, RuntimeException> {
    private final int protocol;

    public OpenSocket(int protocol) {
        this.protocol = protocol;
    }

    /** A socket of {@code protocol} in {@code netns}, or in the calling thread's namespace when null. */
    public static NetlinkSocket in(NetNs netns, int protocol) {
        OpenSocket task = new OpenSocket(protocol);
        return netns == null ? task.run() : netns.call(task);
    }

    @Override
    public NetlinkSocket run() {
        return NetlinkSocket.open(protocol);
    }
}
