package io.jcni.netlink.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jcni.netlink.NetlinkException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The availability probe and the module's only downcall handle.
 *
 * <p>Every downcall handle of a distinct signature costs start-up time (measured here: the first about 9 ms with an AOT
 * cache, 28 ms without, each further one about 3 ms either way; capturing errno and declaring the call variadic cost
 * more on top), and a CNI plugin is a fresh JVM per call.
 * So this module binds exactly one: glibc's {@code long syscall(long number, ...)}, called with six {@code long}
 * arguments, errno captured. Every system call (socket, sendto, recvfrom, setns, openat, flock, ...) goes
 * through it with its {@link Sysno number}; integer and pointer arguments widen to {@code long} as the kernel's
 * calling convention expects. The handle is created on first use, never at class-load time of the API.
 */
public final class NativeAccess {
    private NativeAccess() {}

    /** The flag a launcher must pass; named in every probe failure. */
    public static final String FLAG = "--enable-native-access=io.jcni.netlink";

    static final String ARCH = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    static final boolean X86_64 = ARCH.equals("amd64") || ARCH.equals("x86_64");
    private static final boolean GENERIC_TABLE = ARCH.equals("aarch64") || ARCH.equals("riscv64");

    /** Why the native layer cannot work in this process, or {@code null} if it can. Cheap; no native call. */
    public static String problem() {
        String os = System.getProperty("os.name", "");
        if (!os.equals("Linux")) {
            return "netlink needs Linux, this is " + os;
        }
        if (!X86_64 && !GENERIC_TABLE) {
            return "unsupported architecture " + ARCH + " (supported: amd64, aarch64, riscv64)";
        }
        Module module = NativeAccess.class.getModule();
        if (!module.isNativeAccessEnabled()) {
            String grant = module.isNamed() ? module.getName() : "ALL-UNNAMED";
            return "native access is not enabled for " + (module.isNamed() ? "module " + grant : "the class path")
                    + ": start java with --enable-native-access=" + grant
                    + " (a jlink image: --add-options; Maven tests: surefire argLine)";
        }
        return null;
    }

    /**
     * Whether {@link #check()} has passed once: what {@link #problem()} looks at (the OS, the architecture, the
     * module's native access) does not change while the JVM runs.
     */
    private static volatile boolean passed;

    /**
     * Throws a {@link NetlinkException.Kind#UNAVAILABLE} exception naming the fix when {@link #problem()} finds one.
     * Every system call wrapper passes here (through {@link #stateSize()}), so after the first pass it costs a read of
     * a volatile: {@code problem()}'s property and module lookups, run interpreted in a fresh JVM's first calls, were
     * 1.5 % of a JFR profile of a bridge ADD/DEL loop through the plugin service under {@code -Xint}.
     */
    public static void check() {
        if (passed) {
            return;
        }
        String problem = problem();
        if (problem != null) {
            throw new NetlinkException("netlink native layer", NetlinkException.Kind.UNAVAILABLE, problem, null);
        }
        passed = true;
    }

    /**
     * Initialized on first use only, after {@link #check()} passed (a failed static initializer cannot be retried).
     * The module's one restricted call: the warning is suppressed here and nowhere else.
     */
    @SuppressWarnings("restricted")
    static final class Downcall {
        private Downcall() {}

        static final MethodHandle SYSCALL;
        static final long ERRNO_OFFSET;
        static final long STATE_SIZE;

        static {
            Linker linker = Linker.nativeLinker();
            // No lambdas on this path: each costs a bootstrap at the first FFM use of every plugin exec.
            Optional<MemorySegment> found = linker.defaultLookup().find("syscall");
            if (found.isEmpty()) {
                throw new IllegalStateException("libc has no syscall symbol");
            }
            MemorySegment address = found.get();
            FunctionDescriptor descriptor = FunctionDescriptor.of(JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
            // Declared non-variadic on purpose: with firstVariadicArg the first handle costs ~50 ms more here even
            // with an AOT cache. The calling conventions agree for this call: every argument is an integer passed in
            // a register or in the same stack slot either way (x86-64 SysV, AAPCS64 on Linux), and the one
            // difference, %al = number of vector registers used, is ignored by glibc's assembly syscall (and only
            // decides whether a C va_start spills vector registers elsewhere).
            SYSCALL = linker.downcallHandle(address, descriptor, Linker.Option.captureCallState("errno"));
            StructLayout state = Linker.Option.captureStateLayout();
            ERRNO_OFFSET = offsetOf(state, "errno");
            STATE_SIZE = state.byteSize();
        }
    }

    /** A member's offset by walking the members: layout paths ({@code byteOffset(groupElement)}) cost ms at start-up. */
    static long offsetOf(StructLayout layout, String member) {
        long offset = 0;
        for (MemoryLayout m : layout.memberLayouts()) {
            if (m.name().isPresent() && m.name().get().equals(member)) {
                return offset;
            }
            offset += m.byteSize();
        }
        throw new IllegalStateException(layout + " has no member " + member);
    }

    /** Bytes to allocate for a call-state segment passed to {@link #syscall}. */
    static long stateSize() {
        check();
        awaitPreparation();
        return Downcall.STATE_SIZE;
    }

    // ---- linking ahead of first use ----

    /** The thread started by {@link #prepareInBackground}, until someone has waited for it. */
    private static volatile Thread preparing;

    /**
     * Starts linking the downcall on a daemon platform thread: the JDK's first downcall handle costs 10-20 ms of class
     * initialization and generated code, which an exec'd plugin can overlap with decoding its input. Does nothing when
     * {@link #problem()} finds one (the first real use reports it) or when called again.
     */
    public static synchronized void prepareInBackground() {
        if (preparing != null || problem() != null) {
            return;
        }
        loadFirstJdkLibrary();
        Thread thread = new Thread(new Preparation(), "jcni-ffm-prepare");
        thread.setDaemon(true);
        preparing = thread;
        thread.start();
    }

    /**
     * Makes the process's first load of a JDK native library (libnio, through the file system provider) on this
     * thread, before the preparation thread exists. Why: the JDK's {@code NativeLibraries.c} (JDK 25 and before)
     * caches its field IDs without synchronization, {@code if (handleID == 0) { handleID = GetFieldID(...);
     * jniVersionID = GetFieldID(...); }}, so a second thread that loads another library inside that window stores the
     * library's JNI version through field ID 0: into the first word, the mark word, of its {@code NativeLibraryImpl}.
     * The next young collection then follows that "monitor" pointer and the JVM dies with SIGSEGV in
     * {@code markWord::displaced_mark_helper}. Seen in exec'd portmaps under load (about 1 in 15,000 starts), whose
     * main thread loaded libnet (InetAddress) while the preparation thread's FFM linking loaded libnio: the crash
     * report showed libnet's {@code NativeLibraryImpl} with mark word 0x00010002 (JNI_VERSION_1_2, what libnet's
     * JNI_OnLoad returns) and its {@code jniVersion} field 0. Once one load has finished, the IDs are set and
     * {@link Thread#start} publishes them. Costs the dlopen of libnio that the call makes anyway; a no-op when a
     * library was loaded before.
     */
    private static void loadFirstJdkLibrary() {
        Files.exists(Path.of("/"));
    }

    /** Initializes {@link Downcall} and makes one harmless call ({@code close(-1)}: EBADF) to link the call path. */
    private static final class Preparation implements Runnable {
        @Override
        public void run() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(Downcall.STATE_SIZE);
                long ignored = (long) Downcall.SYSCALL.invokeExact(state, Sysno.close.number(), -1L, 0L, 0L, 0L, 0L,
                        0L);
            } catch (Throwable ignored) {
                // The first real use fails the same way and reports it.
            }
        }
    }

    /**
     * Waits for a preparation in progress. Every first use of {@code java.lang.foreign} in this module passes here
     * (arenas, the call-state size, the struct layouts), so the JDK's FFM classes are never initialized by two
     * threads at once: no class-initialization deadlock can arise between the preparation and the caller.
     */
    static void awaitPreparation() {
        Thread thread = preparing;
        if (thread == null || thread == Thread.currentThread()) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        preparing = null;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Invokes system call {@code nr}. Returns the raw result: -1 with the errno in {@code state} on failure.
     * {@code state} must be a segment of {@link #stateSize()} bytes used by one thread at a time.
     */
    static long syscall(MemorySegment state, Sysno nr, long a0, long a1, long a2, long a3, long a4, long a5) {
        try {
            return (long) Downcall.SYSCALL.invokeExact(state, nr.number(), a0, a1, a2, a3, a4, a5);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("syscall " + nr, t);
        }
    }

    /** The errno captured in {@code state} by the last failing {@link #syscall}. */
    static int errno(MemorySegment state) {
        return NativeMemory.view(state).getInt((int) Downcall.ERRNO_OFFSET);
    }
}
