/**
 * Link, address, route and sysctl helpers the plugins share (Go's {@code pkg/ip}): veth pairs, DEL's link delete,
 * the default route's interface, IP forwarding and {@code accept_ra}, gratuitous ARP, MAC and prefix helpers, a
 * prevResult's lookups, and CHECK's validators of kernel state against a result.
 */
package io.jcni.plugins.internal.pkg.ip;
