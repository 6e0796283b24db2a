package io.jcni.plugins.internal.service;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * Serializes the service's calls on one attachment ({@code CNI_CONTAINERID}, {@code CNI_IFNAME}): ADD, CHECK and DEL
 * of the same attachment never run at once, as the spec asks of a runtime, even when a runtime does not (a DEL sent
 * after an ADD's timeout while the ADD still runs here). Calls on other attachments run concurrently.
 *
 * <p>As the runtime's attachment locks (io.jcni.runtime's {@code AttachmentLocks}), attachments hash into a fixed
 * number of buckets, so memory stays bounded whatever the number of containers; two attachments sharing a bucket
 * (1 in {@value #BUCKETS} per pair) wait for each other, which delays and never breaks. In memory only: a call's
 * state is on disk (the plugins'), and a restarted service has no call in progress.
 */
final class AttachmentLocks {
    static final int BUCKETS = 1024;

    private final ReentrantLock[] buckets = new ReentrantLock[BUCKETS];

    AttachmentLocks() {
        for (int i = 0; i < BUCKETS; i++) {
            buckets[i] = new ReentrantLock();
        }
    }

    /** The lock of an attachment. */
    ReentrantLock of(String containerId, String ifName) {
        CRC32C crc = new CRC32C();
        crc.update(containerId.getBytes(StandardCharsets.UTF_8));
        crc.update(0);
        crc.update(ifName.getBytes(StandardCharsets.UTF_8));
        return buckets[(int) (crc.getValue() & (BUCKETS - 1))];
    }
}
