package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.wire.LibcH;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Accounting of every native byte this module allocates: all arenas and mappings come from here and report what they
 * hold until closed or unmapped. Tests use it to prove that handles free everything on close and that requests
 * allocate nothing.
 */
public final class NativeMemory {
    private NativeMemory() {}

    private static final AtomicLong LIVE_BYTES = new AtomicLong();
    private static final AtomicLong LIVE_ARENAS = new AtomicLong();

    /** Bytes allocated by arenas of this module that are still open. */
    public static long liveBytes() {
        return LIVE_BYTES.get();
    }

    /** Arenas of this module that are still open. */
    public static long liveArenas() {
        return LIVE_ARENAS.get();
    }

    /** A shared arena (usable from any thread, one at a time here), counted. */
    static Arena shared() {
        NativeAccess.awaitPreparation();
        return new Counted(Arena.ofShared());
    }

    /** A confined arena for the duration of one call, counted. */
    static Arena confined() {
        NativeAccess.awaitPreparation();
        return new Counted(Arena.ofConfined());
    }

    /**
     * {@code bytes} of fresh anonymous memory ({@code mmap(2)}, private), as a segment of no arena (the global scope:
     * nothing checks its liveness), counted until {@link #unmap}. For buffers of many KiB that are mostly left
     * untouched: {@code Arena.allocate} zeroes every byte first, in a Java loop of 8-byte stores ({@code
     * SegmentFactories.initNativeMemory}, JDK 25) that runs interpreted in a fresh JVM, about 0.35 ms for a netlink
     * socket's 48 KiB, where the kernel hands out a zeroed page only when it is first touched. The caller guarantees
     * that nothing touches the segment once {@link #unmap} ran (an access then is a fault, not an exception).
     * {@code state} is the caller's call-state segment.
     */
    static MemorySegment map(MemorySegment state, long bytes) {
        long address = NativeAccess.syscall(state, Sysno.mmap, 0, bytes, LibcH.PROT_READ | LibcH.PROT_WRITE,
                LibcH.MAP_PRIVATE | LibcH.MAP_ANONYMOUS, -1, 0);
        if (address == -1) {
            throw new NetlinkException("mmap " + bytes + " bytes", NativeAccess.errno(state), null);
        }
        try {
            MemorySegment segment = MemorySegment.ofAddress(address).reinterpret(bytes);
            LIVE_BYTES.addAndGet(bytes);
            return segment;
        } catch (RuntimeException | Error e) {
            NativeAccess.syscall(state, Sysno.munmap, address, bytes, 0, 0, 0, 0);
            throw e;
        }
    }

    /**
     * Unmaps a segment of {@link #map}. Failing is a bug
     * (only a wrong address or size makes {@code munmap} fail), so it throws rather than leave the mapping unnoticed.
     */
    static void unmap(MemorySegment state, MemorySegment mapped) {
        if (NativeAccess.syscall(state, Sysno.munmap, mapped.address(), mapped.byteSize(), 0, 0, 0, 0) != 0) {
            throw new IllegalStateException("munmap " + mapped.byteSize() + " bytes at 0x"
                    + Long.toHexString(mapped.address()) + ": errno " + NativeAccess.errno(state));
        }
        LIVE_BYTES.addAndGet(-mapped.byteSize());
    }

    /**
     * A native-order {@link ByteBuffer} over {@code segment}. This module reads and writes native memory through these
     * views, never through {@code MemorySegment.get/set(ValueLayout, ...)}, {@code allocateFrom(...)} or array
     * copies: those go through var handles and a pattern switch whose LambdaForms the JDK spins at run time (not in
     * the AOT cache), about 3 ms at the first use in every plugin exec. The views cost no such linkage.
     */
    static ByteBuffer view(MemorySegment segment) {
        return segment.asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /** {@code text} as a NUL-terminated UTF-8 string in {@code arena}: {@code allocateFrom(String)}, cheaper. */
    static MemorySegment cString(Arena arena, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        MemorySegment segment = arena.allocate(bytes.length + 1L); // zeroed: the last byte is the NUL
        view(segment).put(0, bytes, 0, bytes.length);
        return segment;
    }

    private static final class Counted implements Arena {
        private final Arena delegate;
        private final AtomicLong bytes = new AtomicLong();
        private boolean closed;

        Counted(Arena delegate) {
            this.delegate = delegate;
            LIVE_ARENAS.incrementAndGet();
        }

        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            MemorySegment segment = delegate.allocate(byteSize, byteAlignment);
            bytes.addAndGet(byteSize);
            LIVE_BYTES.addAndGet(byteSize);
            return segment;
        }

        @Override
        public MemorySegment.Scope scope() {
            return delegate.scope();
        }

        @Override
        public void close() {
            delegate.close();
            if (!closed) {
                closed = true;
                LIVE_BYTES.addAndGet(-bytes.get());
                LIVE_ARENAS.decrementAndGet();
            }
        }
    }
}
