package io.jcni.plugins.internal.pkg.ipam.ranges;

import java.util.Objects;

/**
 * One reservation file as found on disk: the address and its owner. {@code ifname} is empty for a legacy reservation
 * (a file holding only the container ID, written by host-local before v0.7), which belongs to every interface of that
 * container.
 */
public record Reservation(IpAddress address, String containerId, String ifname) {

    public boolean legacy() {
        return ifname.isEmpty();
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Reservation other
                && Objects.equals(address, other.address)
                && Objects.equals(containerId, other.containerId)
                && Objects.equals(ifname, other.ifname);
    }

    @Override
    public int hashCode() {
        int h = Objects.hashCode(address);
        h = 31 * h + Objects.hashCode(containerId);
        h = 31 * h + Objects.hashCode(ifname);
        return h;
    }

    @Override
    public String toString() {
        return "Reservation[address=" + address + ", containerId=" + containerId + ", ifname=" + ifname + "]";
    }
}
