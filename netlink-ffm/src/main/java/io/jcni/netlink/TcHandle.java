package io.jcni.netlink;

import io.jcni.netlink.internal.wire.PktSchedH;

/**
 * Traffic control handles ({@code <linux/pkt_sched.h>}): 32 bits, a 16-bit major and a 16-bit minor number, written by
 * {@code tc} as {@code major:minor} in hex ({@code 1:} is major 1, minor 0; {@code ffff:} the ingress qdisc's handle).
 * Qdiscs, classes and filters name their parent by handle; {@link #ROOT} and {@link #INGRESS} are the attachment points
 * of a device.
 */
public final class TcHandle {
    private TcHandle() {}

    /** {@code TC_H_UNSPEC}: no handle (the kernel picks one for a new qdisc or filter). */
    public static final int UNSPEC = PktSchedH.TC_H_UNSPEC;
    /** {@code TC_H_ROOT} ({@code root}): the parent of a device's egress root qdisc. */
    public static final int ROOT = PktSchedH.TC_H_ROOT;
    /** {@code TC_H_INGRESS} ({@code ffff:fff1}): the parent of the ingress qdisc. */
    public static final int INGRESS = PktSchedH.TC_H_INGRESS;
    /** {@code TC_H_CLSACT}: the parent of the clsact qdisc (the same value as {@link #INGRESS}). */
    public static final int CLSACT = PktSchedH.TC_H_CLSACT;

    /** {@code TC_H_MAKE(major << 16, minor)}: {@code make(1, 0)} is {@code 1:}, {@code make(0xffff, 0)} is {@code ffff:}. */
    public static int make(int major, int minor) {
        if ((major & ~0xffff) != 0 || (minor & ~0xffff) != 0) {
            throw new IllegalArgumentException("tc handle parts must be 0-ffff: " + Integer.toHexString(major) + ":"
                    + Integer.toHexString(minor));
        }
        return (major << 16) | minor;
    }

    /** The major number, {@code TC_H_MAJ(h) >> 16}. */
    public static int major(int handle) {
        return handle >>> 16;
    }

    /** The minor number, {@code TC_H_MIN(h)}. */
    public static int minor(int handle) {
        return handle & PktSchedH.TC_H_MIN_MASK;
    }

    /** As {@code tc} prints it: {@code root}, {@code none} (0), {@code 1:}, {@code ffff:fff1}, {@code :5}. */
    public static String format(int handle) {
        if (handle == ROOT) {
            return "root";
        }
        if (handle == UNSPEC) {
            return "none";
        }
        if (major(handle) == 0) {
            return ":" + Integer.toHexString(minor(handle));
        }
        return Integer.toHexString(major(handle)) + ":" + (minor(handle) == 0 ? "" : Integer.toHexString(minor(handle)));
    }
}
