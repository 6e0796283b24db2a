package io.jcni.netlink;

import io.jcni.netlink.internal.wire.IfEtherH;
import java.util.Objects;

/**
 * A traffic control filter ({@code RTM_NEWTFILTER}; {@code tc filter}), used both to request one and to read one back.
 * {@code new Filter(3, TcHandle.make(0xffff, 0), 0, 1, Filter.PROTOCOL_ALL, FilterInfo.U32.matchAll(...))} is
 * {@code tc filter add dev <3> parent ffff: protocol all prio 1 u32 match u32 0 0 ...}.
 *
 * @param index the link
 * @param parent the qdisc (or class) it is attached to, e.g. {@code ffff:} for the ingress qdisc
 * @param handle the filter's handle ({@code fh}); 0 in a request lets the kernel pick one ({@code 800::800} for the
 *     first u32 key node)
 * @param priority {@code prio}/{@code pref}, 1-65535 (0 in a request lets the kernel pick)
 * @param protocol the EtherType it applies to, in host order: {@link #PROTOCOL_ALL}, {@link #PROTOCOL_IP}, ...
 * @param info the classifier and its options
 */
public record Filter(int index, int parent, int handle, int priority, int protocol, FilterInfo info) {

    /** {@code ETH_P_ALL} ({@code protocol all}). */
    public static final int PROTOCOL_ALL = IfEtherH.ETH_P_ALL;
    /** {@code ETH_P_IP} ({@code protocol ip}). */
    public static final int PROTOCOL_IP = IfEtherH.ETH_P_IP;
    /** {@code ETH_P_IPV6} ({@code protocol ipv6}). */
    public static final int PROTOCOL_IPV6 = IfEtherH.ETH_P_IPV6;

    public Filter {
        Objects.requireNonNull(info, "info");
        if (index <= 0) {
            throw new IllegalArgumentException("filter link index must be positive: " + index);
        }
        if (priority < 0 || priority > 0xffff) {
            throw new IllegalArgumentException("filter priority must be 0-65535: " + priority);
        }
        if (protocol < 0 || protocol > 0xffff) {
            throw new IllegalArgumentException("filter protocol must be an EtherType 0-ffff: " + protocol);
        }
    }

    /** {@code TCA_KIND}. */
    public String kind() {
        return info.kind();
    }

    /** As {@code tc filter} reads: {@code dev 3 parent ffff: protocol 0x0003 pref 1 u32 ...}. */
    @Override
    public String toString() {
        return "dev " + index + " parent " + TcHandle.format(parent) + (handle != 0 ? " handle "
                + Integer.toHexString(handle) : "") + " protocol " + String.format("0x%04x", protocol) + " pref "
                + priority + " " + (info instanceof FilterInfo.U32 ? info.toString() : info.kind());
    }
}
