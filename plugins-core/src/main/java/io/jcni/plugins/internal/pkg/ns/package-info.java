/**
 * A network namespace as a plugin sees it (Go's {@code pkg/ns}): {@link io.jcni.plugins.internal.pkg.ns.Namespace}
 * (a netlink handle bound to it, its sysctls), the rollback steps that reopen it ({@link
 * io.jcni.plugins.internal.pkg.ns.Undos}), netlink batches whose failures read like single calls, and netlink-ffm's
 * failures turned into CNI errors at the plugin edge ({@link io.jcni.plugins.internal.pkg.ns.NetErrors}).
 */
package io.jcni.plugins.internal.pkg.ns;
