package io.jcni.plugins.internal.ipam.hostlocal;

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
}
