/**
 * IPAM as a main plugin uses it (Go's {@code pkg/ipam}): an IPAM result applied to an interface ({@link
 * io.jcni.plugins.internal.pkg.ipam.IfaceConfig}, Go's {@code ConfigureIface}), CHECK, GC and STATUS forwarded to the
 * IPAM plugin ({@link io.jcni.plugins.internal.pkg.ipam.IpamDelegation}), and the config fields the IPAM plugins
 * share.
 */
package io.jcni.plugins.internal.pkg.ipam;
