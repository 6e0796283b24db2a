/**
 * The interface plugins that give a container a link of its own other than a veth: {@code macvlan}, {@code ipvlan},
 * {@code vlan} and {@code dummy} create one (on a lower device for the first three), {@code host-device} moves an
 * existing one in and back out. One class per plugin, as Go's plugins have one directory each; the package-private
 * helpers are what they share (creating under a temporary name, the master link, kernel support, CHECK of the
 * container link). Namespace, IPAM-result and error helpers come from {@code io.jcni.plugins.internal.net}.
 */
package io.jcni.plugins.internal.main.ifaces;
