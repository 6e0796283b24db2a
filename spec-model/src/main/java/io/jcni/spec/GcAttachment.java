package io.jcni.spec;

import java.util.Objects;

/**
 * One still-valid attachment in a GC request ({@code cni.dev/valid-attachments}): plugins remove everything of theirs
 * that is not listed. JSON keys: {@code containerID}, {@code ifname}.
 */
public record GcAttachment(String containerId, String ifName) {
    public GcAttachment {
        Objects.requireNonNull(containerId, "containerId");
        Objects.requireNonNull(ifName, "ifName");
    }
}
