/**
 * The container link of the interface plugins that give a container a link of its own other than a veth:
 * {@code macvlan}, {@code ipvlan}, {@code vlan} and {@code dummy} create one (on a lower device for the first
 * three), {@code host-device} moves an existing one in and back out. What they share: creating under a temporary
 * name, the master link, kernel support, ADD's IPAM step, DEL's order and CHECK of the container link.
 */
package io.jcni.plugins.internal.pkg.link;
