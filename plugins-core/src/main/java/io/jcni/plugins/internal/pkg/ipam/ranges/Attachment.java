package io.jcni.plugins.internal.pkg.ipam.ranges;

import java.util.Objects;

/**
 * Who holds a reservation: a container and one of its interfaces (CNI_CONTAINERID, CNI_IFNAME). Host-local keys every
 * reservation on this pair, as spec 1.1's GC keys valid attachments.
 */
public record Attachment(String containerId, String ifname) {

    public Attachment {
        Objects.requireNonNull(containerId, "containerId");
        Objects.requireNonNull(ifname, "ifname");
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Attachment other
                && Objects.equals(containerId, other.containerId)
                && Objects.equals(ifname, other.ifname);
    }

    @Override
    public int hashCode() {
        int h = Objects.hashCode(containerId);
        h = 31 * h + Objects.hashCode(ifname);
        return h;
    }

    @Override
    public String toString() {
        return "Attachment[containerId=" + containerId + ", ifname=" + ifname + "]";
    }
}
