package io.jcni.plugins.internal.ipam.hostlocal;

/**
 * One reservation file as found on disk: the address and its owner. {@code ifname} is empty for a legacy reservation
 * (a file holding only the container ID, written by host-local before v0.7), which belongs to every interface of that
 * container.
 */
public record Reservation(IpAddress address, String containerId, String ifname) {

    public boolean legacy() {
        return ifname.isEmpty();
    }
}
