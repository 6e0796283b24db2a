package io.jcni.plugins.internal.service;

import java.io.OutputStream;
import java.util.Arrays;

/** Collects what a call writes, keeping the first {@code limit} bytes (a plugin's stderr: log lines, stack traces). */
final class BoundedOutput extends OutputStream {
    private final int limit;
    private byte[] bytes = new byte[256];
    private int length;
    private boolean overflowed;

    BoundedOutput(int limit) {
        this.limit = limit;
    }

    @Override
    public synchronized void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        int keep = Math.min(len, limit - length);
        overflowed |= keep < len;
        if (keep <= 0) {
            return;
        }
        if (length + keep > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(limit, Math.max(length + keep, bytes.length * 2)));
        }
        System.arraycopy(b, off, bytes, length, keep);
        length += keep;
    }

    synchronized byte[] buffer() {
        return bytes;
    }

    synchronized int length() {
        return length;
    }

    /** The first {@code max} bytes as text (UTF-8, what cannot be decoded replaced), for a message. */
    synchronized String text(int max) {
        return new String(bytes, 0, Math.min(max, length), java.nio.charset.StandardCharsets.UTF_8).strip();
    }

    /** Whether anything beyond the limit was written (and dropped). */
    synchronized boolean overflowed() {
        return overflowed;
    }
}
