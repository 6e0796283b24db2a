/**
 * Typed rtnetlink for CNI plugins: {@link io.jcni.netlink.Netlink} opens a {@link io.jcni.netlink.NetlinkHandle}
 * bound to one {@link io.jcni.netlink.NetNs}; its methods read and change links, addresses, routes, neighbours, policy
 * routing rules ({@link io.jcni.netlink.Rule}) and traffic control ({@link io.jcni.netlink.Qdisc},
 * {@link io.jcni.netlink.Filter}), each documented with its {@code ip} or {@code tc} equivalent;
 * {@link io.jcni.netlink.TunTap} creates TUN/TAP devices; {@link io.jcni.netlink.Batch} sends many changes per system
 * call. nf_tables (what {@code nft} does: tables, chains, rules, sets, committed as all-or-nothing transactions) is in
 * {@link io.jcni.netlink.nft}, over the same wire layer; sysctls and {@code flock(2)} locks, which are not netlink, are
 * in {@link io.jcni.netlink.sys}.
 *
 * <p>Every failure is a {@link io.jcni.netlink.KernelException}: a {@link io.jcni.netlink.NetlinkException} (with the
 * kernel's extended ACK) from netlink requests and the namespace and socket calls that serve them, a plain
 * KernelException from {@code io.jcni.netlink.sys}.
 *
 * <p>IP addresses are {@link java.net.InetAddress} values and prefix lengths ({@code int}), never text: this module
 * depends on no other jcni module and reads or prints no IP text of its own (jcni's one IP text form is spec-model's
 * {@code IpText}). Requests print themselves for error messages as {@code ip} would, with addresses in
 * {@link java.net.InetAddress#getHostAddress()} form ({@code 10.1.0.5}, {@code fd00:0:0:0:0:0:0:5}).
 */
package io.jcni.netlink;
