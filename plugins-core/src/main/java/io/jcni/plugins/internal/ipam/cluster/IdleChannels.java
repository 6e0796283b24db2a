package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdConfig.Endpoint;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Open connections to etcd endpoints that a finished call left, for the next call of this JVM (the plugin service's):
 * with the node's view making an ADD one transaction, a new TCP connection per call would be a good part of what is
 * left. An exec'd plugin makes one call and never takes one.
 *
 * <p><b>Process-wide state, on purpose</b> (a service-lifetime cache, as {@link NodeView}): at most {@value #MAX_IDLE}
 * idle connections per endpoint, each owned by one call at a time (taken, used under its {@link EtcdClient}'s lock,
 * given back on close). Plain connections only: a TLS connection carries the identity of the certificate files one call
 * read, and must not outlive a change of them; those are opened per call as before. A connection the server closed
 * meanwhile is reopened by {@link GrpcChannel#call} on first use, as any kept-alive one.
 */
final class IdleChannels {
    static final int MAX_IDLE = 8;

    private static final ConcurrentHashMap<Endpoint, ConcurrentLinkedDeque<GrpcChannel>> IDLE =
            new ConcurrentHashMap<>();

    private IdleChannels() {
    }

    /** An idle connection to {@code endpoint}, or null. */
    static GrpcChannel take(Endpoint endpoint) {
        ConcurrentLinkedDeque<GrpcChannel> idle = IDLE.get(endpoint);
        return idle == null ? null : idle.pollFirst();
    }

    /** Keeps {@code channel} for a later call; false if enough are kept (the caller closes it). */
    static boolean give(Endpoint endpoint, GrpcChannel channel) {
        ConcurrentLinkedDeque<GrpcChannel> idle = IDLE.get(endpoint);
        if (idle == null) {
            ConcurrentLinkedDeque<GrpcChannel> fresh = new ConcurrentLinkedDeque<>();
            idle = IDLE.putIfAbsent(endpoint, fresh);
            if (idle == null) {
                idle = fresh;
            }
        }
        if (idle.size() >= MAX_IDLE) {
            return false;
        }
        idle.offerFirst(channel);
        return true;
    }
}
