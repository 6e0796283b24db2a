package io.jcni.plugins.internal.pkg.ipam.ranges;

import java.util.Collection;
import java.util.List;

/**
 * Where a range-based IPAM plugin keeps its reservations: the operations host-local's ADD, CHECK, DEL and GC need,
 * on the range model of this package ({@link RangeSet}, {@link IpAddress}, {@link Attachment}). {@link HostLocalStore}
 * keeps them in a node's data directory in Go's format; {@code ipam.cluster.ClusterStore} in etcd, for a whole
 * cluster. Configuration and canonical ranges come from {@link RangeConfig} for both.
 *
 * <p>Contracts: {@code allocate} is all or nothing (a failure leaves no reservation of the call behind) and, with
 * {@link OnExisting#REUSE}, idempotent per attachment; {@code release} of what is not reserved is no error; every
 * failure is an {@link IpamException} whose reason picks the CNI code ({@link RangeConfig#failure}).
 */
public interface IpamStore extends AutoCloseable {

    /** One address per range set for {@code who} (see {@link HostLocalStore#allocate} for the order and rules). */
    List<Allocation> allocate(Attachment who, List<RangeSet> rangeSets, List<IpAddress> requested,
            OnExisting onExisting) throws IpamException;

    /** The reservations of {@code who}. */
    List<Reservation> find(Attachment who) throws IpamException;

    /** Releases the reservations of {@code who}; the released addresses. */
    List<IpAddress> release(Attachment who) throws IpamException;

    /** Spec 1.1 GC: releases every reservation whose attachment is not in {@code valid}. */
    List<Reservation> gc(Collection<Attachment> valid) throws IpamException;

    @Override
    void close() throws IpamException;
}
