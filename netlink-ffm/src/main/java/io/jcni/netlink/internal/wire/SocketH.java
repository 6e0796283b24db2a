package io.jcni.netlink.internal.wire;

/** Constants from {@code <sys/socket.h>} (and {@code <sys/un.h>}): socket families, types, levels, options and message
 *  flags used with netlink, packet and Unix sockets (the dhcp plugin's, and those of {@code io.jcni.netlink.sys.UnixSocket}).
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class SocketH {
    private SocketH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "sys/socket.h sys/un.h";

    public static final int AF_UNSPEC = 0;
    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int AF_NETLINK = 16;
    public static final int AF_BRIDGE = 7;
    public static final int AF_PACKET = 17;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_CLOEXEC = 524288;
    public static final int SOL_SOCKET = 1;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_SNDBUFFORCE = 32;
    public static final int SO_RCVBUFFORCE = 33;
    public static final int SO_RCVTIMEO = 20;
    public static final int SO_ATTACH_FILTER = 26;
    public static final int SO_SNDTIMEO = 21;
    public static final int SO_TYPE = 3;
    public static final int SO_PEERCRED = 17;
    public static final int SO_ACCEPTCONN = 30;
    public static final int SO_DOMAIN = 39;
    /** Control message type carrying file descriptors ({@code cmsg_level} SOL_SOCKET). */
    public static final int SCM_RIGHTS = 1;
    public static final int SHUT_RDWR = 2;
    public static final int SOL_NETLINK = 270;
    public static final int MSG_PEEK = 2;
    public static final int MSG_TRUNC = 32;
    public static final int MSG_DONTWAIT = 64;
    public static final int MSG_CTRUNC = 8;
    /** Send without raising SIGPIPE when the peer has gone: EPIPE instead. */
    public static final int MSG_NOSIGNAL = 16384;
    public static final int MSG_CMSG_CLOEXEC = 1073741824;
}
