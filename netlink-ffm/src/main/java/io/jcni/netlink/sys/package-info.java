/**
 * The kernel interfaces plugins use beside netlink: network sysctls ({@link io.jcni.netlink.sys.Sysctl}, the files
 * under {@code /proc/sys/net} as a given namespace sees them) and {@code flock(2)} file locks
 * ({@link io.jcni.netlink.sys.FileLocks}, the lock Go's host-local takes); and what jcni's plugin service needs of Unix
 * domain sockets beyond the JDK's ({@link io.jcni.netlink.sys.UnixSocket}: descriptors passed with {@code SCM_RIGHTS}
 * as {@link io.jcni.netlink.sys.Descriptor}s, peer credentials, an inherited listening socket, timeouts). All throw
 * {@link io.jcni.netlink.KernelException}, the module's exception, of which netlink's
 * {@link io.jcni.netlink.NetlinkException} is the subclass.
 */
package io.jcni.netlink.sys;
