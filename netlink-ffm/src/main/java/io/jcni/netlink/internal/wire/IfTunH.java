package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if_tun.h>}: the TUN/TAP character device's ioctls and interface flags.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfTunH {
    private IfTunH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if_tun.h";

    /** {@code _IOW('T', 202, int)}: attach the file to a (new) device named in a {@code struct ifreq}. */
    public static final int TUNSETIFF = 0x400454ca;
    /** {@code _IOW('T', 203, int)}: the argument (by value) 1 keeps the device after the file is closed. */
    public static final int TUNSETPERSIST = 0x400454cb;
    /** {@code _IOW('T', 204, int)}: the owning uid, by value. */
    public static final int TUNSETOWNER = 0x400454cc;
    /** {@code _IOW('T', 206, int)}: the owning gid, by value. */
    public static final int TUNSETGROUP = 0x400454ce;
    public static final int IFF_TUN = 0x0001;
    public static final int IFF_TAP = 0x0002;
    public static final int IFF_NO_PI = 0x1000;
    public static final int IFF_ONE_QUEUE = 0x2000;
    public static final int IFF_VNET_HDR = 0x4000;
    /** Fail with EBUSY rather than attach when a device of the name exists. */
    public static final int IFF_TUN_EXCL = 0x8000;
    public static final int IFF_MULTI_QUEUE = 0x0100;
    public static final int IFF_PERSIST = 0x0800;
    public static final int TUN_TYPE_MASK = 0x000f;
}
