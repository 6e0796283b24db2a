package io.jcni.runtime.internal.exec;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Launch helpers started ahead of time, to take the JDK's spawn cost off the exec's critical path.
 *
 * <p>Why: the JDK starts every process through {@code jspawnhelper} (posix_spawn of the helper, which then execs the
 * target): one more exec of a dynamically linked program than Go's fork+exec, about 0.5-0.7 ms here. A warm helper is
 * a {@code dash} process already started (by the JDK, in the background) with the runtime's environment, blocked
 * reading its stdin. To run a plugin, the runtime writes a header to that stdin, then the plugin's config; the helper
 * reads the header (dash reads a pipe byte by byte, so the config stays unread for the plugin), exports the CNI_*
 * variables, and {@code exec}s the plugin in place: same pid, same pipes, so stdout, stderr, exit status, timeout and
 * kill work exactly as with a direct spawn.
 *
 * <p>Header: a random nonce, the executable's path, one {@code NAME=value} line per CNI_* variable, an empty line.
 * If the {@code exec} fails, the helper's EXIT trap prints the nonce on stderr (a successful exec replaces the shell,
 * traps and all); the runner then knows the plugin never ran and spawns it directly, which reports the failure with
 * the usual texts and retries "text file busy". The nonce travels on stdin, not argv, so the plugin cannot see it.
 *
 * <p>Transparency: the plugin must see exactly the environment a direct spawn gives. dash changes a few variables it
 * manages ({@code IFS}, {@code OPTIND}, {@code PPID}) when they are in its environment, and adds {@code PWD}: helpers
 * are therefore used only when the base environment has none of the first three (the helper unsets {@code PWD} if the
 * base environment lacks it), only when {@code /bin/dash} or {@code /usr/bin/dash} exists, and only for values
 * without newlines. Otherwise the runner spawns directly. Idle helpers exit by themselves when the JVM goes (their
 * stdin closes) and are destroyed when their spawner becomes unreachable.
 *
 * <p>jcni's native helper ({@code runtime/src/main/c/launch-helper.c}, shipped as
 * {@code dist/libexec/jcni-launch-helper}) takes dash's place when given, and does more: it reads the same header
 * (preceded by its length, so in one call where dash reads a byte per call, and with the stdin's length), starts the
 * plugin as its child, feeds its stdin, collects its stdout, stderr and exit status and writes them back in one
 * message ({@link #collects()}), so the runtime wakes once per call instead of handing results between the JDK's
 * process threads; and it stays, serving call after call ({@link #release}), so no helper is started per call. It
 * sets no shell variables, so any environment is served.
 */
public final class WarmSpawner {
    private static final List<String> SHELL_MANAGED = List.of("IFS", "OPTIND", "PPID");
    private static final Cleaner CLEANER = Cleaner.create(
            Thread.ofPlatform().daemon().name("jcni-warm-spawner-cleaner").factory());

    private final List<String> command;
    private final Map<String, String> baseEnv;
    private final int idle;
    private final State state;
    private final Cleaner.Cleanable cleanable;
    /** Whether the helper is jcni's native one, which takes its header's length first. */
    private final boolean nativeHelper;

    /** One started helper and the nonce it will print if its exec fails. */
    public static final class Helper {
        final Process process;
        final byte[] nonce;

        Helper(Process process, byte[] nonce) {
            this.process = process;
            this.nonce = nonce;
        }
    }

    /** The idle helpers; separate from the spawner so that the cleaner does not keep the spawner reachable. */
    private static final class State implements Runnable {
        final ConcurrentLinkedQueue<Helper> ready = new ConcurrentLinkedQueue<>();
        final AtomicInteger pending = new AtomicInteger();
        /** Native helpers serving a call now (they come back with {@link #release}). */
        final AtomicInteger busy = new AtomicInteger();
        volatile boolean closed;

        @Override
        public void run() {
            closed = true;
            for (Helper helper; (helper = ready.poll()) != null; ) {
                helper.process.destroy();
            }
        }
    }

    private WarmSpawner(Path nativeHelper, Map<String, String> baseEnv, int idle) {
        this.baseEnv = baseEnv;
        this.idle = idle;
        this.state = new State();
        this.nativeHelper = true;
        this.command = List.of(nativeHelper.toString());
        this.cleanable = CLEANER.register(this, state);
    }

    private WarmSpawner(Map<String, String> baseEnv, int idle, Path dash) {
        this.baseEnv = baseEnv;
        this.idle = idle;
        this.state = new State();
        this.nativeHelper = false;
        StringBuilder script = new StringBuilder()
                .append("IFS= read -r n || exit 125\n")
                .append("trap 'printf \"%s\" \"$n\" >&2' EXIT\n")
                .append("IFS= read -r p || exit 125\n")
                .append("while IFS= read -r kv && [ -n \"$kv\" ]; do export \"$kv\" || exit 125; done\n");
        if (!baseEnv.containsKey("PWD")) {
            script.append("unset PWD\n");
        }
        script.append("exec \"$p\"\n");
        this.command = List.of(dash.toString(), "-c", script.toString());
        this.cleanable = CLEANER.register(this, state);
    }

    /** Stops the idle helpers and starts no more: {@link #take()} returns null from now on. Idempotent. */
    public void close() {
        cleanable.clean();
    }

    /**
     * A spawner keeping {@code idle} helpers ready, or null if helpers cannot be transparent here (no dash, or the
     * environment holds variables dash would change). Helpers start on first use.
     */
    public static WarmSpawner create(Map<String, String> baseEnv, int idle) {
        return create(baseEnv, idle, null);
    }

    /**
     * A spawner keeping {@code idle} helpers ready that run {@code nativeHelper} (jcni's launch helper), or dash as
     * {@link #create(Map, int)} when it is null. A native helper that is not executable means no helpers (direct
     * spawns), as a missing dash does.
     */
    public static WarmSpawner create(Map<String, String> baseEnv, int idle, Path nativeHelper) {
        if (idle <= 0) {
            return null;
        }
        if (nativeHelper != null) {
            return Files.isExecutable(nativeHelper) ? new WarmSpawner(nativeHelper, baseEnv, idle) : null;
        }
        for (String name : SHELL_MANAGED) {
            if (baseEnv.containsKey(name)) {
                return null;
            }
        }
        for (Path dash : List.of(Path.of("/bin/dash"), Path.of("/usr/bin/dash"))) {
            if (Files.isExecutable(dash)) {
                return new WarmSpawner(baseEnv, idle, dash);
            }
        }
        return null;
    }

    /**
     * Whether a plugin with these values can go through a helper: no newline, which would break the header, and a
     * header the native helper takes (it reads at most 1 MiB; CNI variables are far smaller).
     */
    static boolean carries(Path executable, Map<String, String> cniEnv) {
        if (executable.toString().indexOf('\n') >= 0) {
            return false;
        }
        long length = executable.toString().length();
        for (Map.Entry<String, String> entry : cniEnv.entrySet()) {
            if (entry.getKey().indexOf('\n') >= 0 || entry.getKey().indexOf('=') >= 0
                    || entry.getValue().indexOf('\n') >= 0 || !isName(entry.getKey())) {
                return false;
            }
            length += entry.getKey().length() + entry.getValue().length() + 2;
        }
        return length < (256 << 10);
    }

    private static boolean isName(String name) {
        if (name.isEmpty() || Character.isDigit(name.charAt(0))) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
                return false;
            }
        }
        return true;
    }

    /** A ready helper, or null if none is (the caller spawns directly); starts replacements in the background. */
    Helper take() {
        if (state.closed) {
            return null;
        }
        Helper helper;
        while ((helper = state.ready.poll()) != null && !helper.process.isAlive()) {
            // An idle helper that died (killed from outside): skip it.
        }
        if (helper != null && nativeHelper) {
            state.busy.incrementAndGet();
        }
        refill();
        return helper;
    }

    /**
     * A native helper is resident: after a call that read its whole answer ({@code reusable}) it goes back to the
     * idle ones; otherwise (killed at a timeout, an answer it could not give) it is ended, and replaced.
     */
    void release(Helper helper, boolean reusable) {
        state.busy.decrementAndGet();
        if (reusable && !state.closed && helper.process.isAlive()) {
            state.ready.add(helper);
        } else {
            helper.process.destroyForcibly();
            refill();
        }
    }

    /** The header that makes {@code helper} exec {@code executable} with {@code cniEnv} on top of its environment. */
    byte[] header(Helper helper, Path executable, Map<String, String> cniEnv) {
        StringBuilder header = new StringBuilder(256);
        header.append(new String(helper.nonce, StandardCharsets.ISO_8859_1)).append('\n');
        header.append(executable).append('\n');
        for (Map.Entry<String, String> entry : cniEnv.entrySet()) {
            header.append(entry.getKey()).append('=').append(entry.getValue()).append('\n');
        }
        if (!nativeHelper) {
            return header.append('\n').toString().getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalStateException("the native helper's header carries the stdin's length: header(h, e, env, n)");
    }

    /**
     * The native helper's request head: the header's length, then nonce, executable, {@code stdinLength}, the
     * variables; the plugin's stdin follows (exactly {@code stdinLength} bytes).
     */
    byte[] header(Helper helper, Path executable, Map<String, String> cniEnv, int stdinLength) {
        if (!nativeHelper) {
            return header(helper, executable, cniEnv);
        }
        StringBuilder header = new StringBuilder(256);
        header.append(new String(helper.nonce, StandardCharsets.ISO_8859_1)).append('\n');
        header.append(executable).append('\n').append(stdinLength).append('\n');
        for (Map.Entry<String, String> entry : cniEnv.entrySet()) {
            header.append(entry.getKey()).append('=').append(entry.getValue()).append('\n');
        }
        byte[] body = header.toString().getBytes(StandardCharsets.UTF_8);
        byte[] length = String.format("%08d\n", body.length).getBytes(StandardCharsets.US_ASCII);
        byte[] framed = Arrays.copyOf(length, length.length + body.length);
        System.arraycopy(body, 0, framed, length.length, body.length);
        return framed;
    }

    /**
     * Whether the helpers answer with one message ("R status lengths overflow" and the plugin's output, or "E errno"
     * when it could not be started) rather than becoming the plugin: jcni's native helper.
     */
    boolean collects() {
        return nativeHelper;
    }

    /** True if stderr ends with the helper's nonce: its exec failed and the plugin never ran. */
    static boolean execFailed(Helper helper, byte[] stderr) {
        byte[] nonce = helper.nonce;
        if (stderr.length < nonce.length) {
            return false;
        }
        for (int i = 0; i < nonce.length; i++) {
            if (stderr[stderr.length - nonce.length + i] != nonce[i]) {
                return false;
            }
        }
        return true;
    }

    /** Helpers started and waiting (tests). */
    int readyCount() {
        return state.ready.size();
    }

    private void refill() {
        while (!state.closed && state.ready.size() + state.pending.get() + state.busy.get() < idle) {
            state.pending.incrementAndGet();
            ProcessRunner.submit(new Spawn(command, baseEnv, state, nativeHelper));
        }
    }

    private static final class Spawn implements Runnable {
        private final List<String> command;
        private final Map<String, String> baseEnv;
        private final State state;
        private final boolean collects;

        Spawn(List<String> command, Map<String, String> baseEnv, State state, boolean collects) {
            this.command = command;
            this.baseEnv = baseEnv;
            this.state = state;
            this.collects = collects;
        }

        @Override
        public void run() {
            try {
                ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command));
                if (collects) {
                    // Its answer is on stdout; the plugin's stderr travels in it.
                    builder.redirectError(ProcessBuilder.Redirect.DISCARD);
                }
                if (baseEnv != System.getenv()) {
                    Map<String, String> env = builder.environment();
                    env.clear();
                    env.putAll(baseEnv);
                }
                byte[] random = new byte[16];
                ThreadLocalRandom.current().nextBytes(random);
                byte[] nonce = ("jcni-helper-" + HexFormat.of().formatHex(random)).getBytes(StandardCharsets.US_ASCII);
                Process process = builder.start();
                if (state.closed) {
                    process.destroy();
                } else {
                    state.ready.add(new Helper(process, nonce));
                }
            } catch (IOException | RuntimeException e) {
                // No helper this time: the next exec spawns directly.
            } finally {
                state.pending.decrementAndGet();
            }
        }
    }
}
