package io.jcni.netlink.internal.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Accounting of every native byte this module allocates: all arenas come from here and report what they hold until
 * closed. Tests use it to prove that handles free everything on close and that requests allocate nothing.
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
