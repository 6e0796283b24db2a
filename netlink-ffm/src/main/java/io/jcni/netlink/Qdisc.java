package io.jcni.netlink;

import java.util.Objects;

/**
 * A queueing discipline on a link ({@code RTM_NEWQDISC}; {@code tc qdisc}), used both to request one and to read one
 * back. {@code Qdisc.root(3, TcHandle.make(1, 0), QdiscInfo.Tbf.tc(...))} is
 * {@code tc qdisc add dev <3> root handle 1: tbf ...}.
 *
 * @param index the link
 * @param handle the qdisc's own handle ({@code handle 1:}); {@link TcHandle#UNSPEC} lets the kernel pick one
 * @param parent where it hangs: {@link TcHandle#ROOT}, {@link TcHandle#INGRESS}, or a class
 * @param info its kind and options
 */
public record Qdisc(int index, int handle, int parent, QdiscInfo info) {

    public Qdisc {
        Objects.requireNonNull(info, "info");
        if (index <= 0) {
            throw new IllegalArgumentException("qdisc link index must be positive: " + index);
        }
    }

    /** {@code tc qdisc add dev <index> root handle HANDLE KIND ...}. */
    public static Qdisc root(int index, int handle, QdiscInfo info) {
        return new Qdisc(index, handle, TcHandle.ROOT, info);
    }

    /** {@code tc qdisc add dev <index> ingress}: handle {@code ffff:}, parent {@code ffff:fff1}. */
    public static Qdisc ingress(int index) {
        return new Qdisc(index, TcHandle.make(0xffff, 0), TcHandle.INGRESS, new QdiscInfo.Ingress());
    }

    /** {@code tc qdisc add dev <index> clsact}: handle {@code ffff:}, parent {@code ffff:fff1}. */
    public static Qdisc clsact(int index) {
        return new Qdisc(index, TcHandle.make(0xffff, 0), TcHandle.CLSACT, new QdiscInfo.Clsact());
    }

    /** {@code TCA_KIND}. */
    public String kind() {
        return info.kind();
    }

    /** As {@code tc qdisc} reads: {@code dev 3 parent root handle 1: tbf rate ...}. */
    @Override
    public String toString() {
        return "dev " + index + " parent " + TcHandle.format(parent) + " handle " + TcHandle.format(handle) + " "
                + (info instanceof QdiscInfo.Tbf ? info.toString() : info.kind());
    }
}
