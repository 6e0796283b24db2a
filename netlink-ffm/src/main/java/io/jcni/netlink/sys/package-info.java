/**
 * The kernel interfaces plugins use beside netlink: network sysctls ({@link io.jcni.netlink.sys.Sysctl}, the files
 * under {@code /proc/sys/net} as a given namespace sees them), {@code flock(2)} file locks
 * ({@link io.jcni.netlink.sys.FileLocks}, the lock Go's host-local takes), packet sockets
 * ({@link io.jcni.netlink.sys.PacketSocket}, with which the dhcp daemon talks to a DHCP server before the link has an
 * address) and what the plugin service and the dhcp plugin need of Unix domain sockets beyond the JDK's
 * ({@link io.jcni.netlink.sys.UnixSocket}: descriptors passed with {@code SCM_RIGHTS} as
 * {@link io.jcni.netlink.sys.Descriptor}s, peer credentials, an inherited listening socket, timeouts, reads with a
 * deadline, and no security providers loaded as the JDK's channels do at first use). All throw
 * {@link io.jcni.netlink.KernelException}, the module's exception, of which netlink's
 * {@link io.jcni.netlink.NetlinkException} is the subclass.
 */
package io.jcni.netlink.sys;
