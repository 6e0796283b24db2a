/**
 * jcni's plugins, laid out as Go's containernetworking/plugins: {@code main.<name>} are the interface plugins
 * ({@code plugins/main/<name>}: bridge, ptp, loopback, macvlan, ipvlan, vlan, dummy, host-device), {@code ipam.<name>}
 * the IPAM plugins ({@code plugins/ipam/<name>}: host-local, static as {@code staticip}), {@code meta.<name>} the
 * chained plugins ({@code plugins/meta/<name>}: tuning). One package per plugin, named after its type without the
 * dash; a plugin's configuration record and its helpers that no other plugin uses live beside it.
 *
 * <p>What plugins share lives in {@code pkg.*}, the counterparts of Go's {@code pkg/}: {@code pkg.ns} (a namespace as
 * a plugin sees it, rollback steps in it, netlink failures as CNI errors), {@code pkg.ip} (veth pairs, links, routes,
 * sysctls, MAC and prefix helpers, CHECK's validators), {@code pkg.ipam} (an IPAM result applied to an interface, the
 * verbs forwarded to IPAM, shared IPAM config fields) and {@code pkg.link} (the container link of macvlan, ipvlan,
 * vlan, dummy and host-device). {@link io.jcni.plugins.internal.PluginRegistry} maps each type to its plugin; the SDK
 * a plugin implements is {@code io.jcni.plugins.sdk}.
 */
package io.jcni.plugins.internal;
