package io.jcni.netlink.internal.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
