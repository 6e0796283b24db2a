/**
 * The {@code firewall} meta plugin (Go's {@code plugins/meta/firewall}): the container's addresses let through the
 * forward path, the administrator's chain first, and the {@code same-bridge}/{@code isolated} ingress policies, as
 * nftables over netlink in the table {@code inet jcni_firewall}. The layout is in
 * {@link io.jcni.plugins.internal.meta.firewall.FirewallRules}, the keys in
 * {@link io.jcni.plugins.internal.meta.firewall.FirewallConfig}, what the nftables table can and cannot override in
 * {@link io.jcni.plugins.internal.meta.firewall.FirewallPlugin}.
 */
package io.jcni.plugins.internal.meta.firewall;
