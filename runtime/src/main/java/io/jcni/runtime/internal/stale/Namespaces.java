package io.jcni.runtime.internal.stale;

import io.jcni.runtime.internal.files.IoText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether a network namespace path recorded at ADD can still name a live namespace, judged without entering it and
 * without opening it ({@code stat} only: a FIFO planted there cannot block, a device is never opened).
 *
 * <ul>
 * <li><b>gone</b>: the path does not exist (the runtime removed the sandbox's namespace file, or a reboot emptied
 * {@code /run}), or it exists but is no longer on nsfs (the bind mount was undone and a plain file is left).</li>
 * <li><b>live</b>: a file on nsfs that is not under {@code /proc}: a bind mount (containerd's, CRI-O's and podman's
 * {@code /var/run/netns/cni-...}, {@code ip netns}'s) holds a namespace as long as it is mounted.</li>
 * <li><b>cannot judge</b>, so kept: a path under {@code /proc} that exists ({@code /proc/PID/ns/net}, which
 * {@code ctr run --cni} and nerdctl record): the process may have ended and its pid been given to another, whose
 * namespace the path now names; a path that is not absolute (some runtimes record an identifier); no path at all; a
 * path that cannot be examined (permissions, a component that is not a directory).</li>
 * </ul>
 * A {@code /proc/PID/...} path that does not exist is gone: no process has that pid, so nothing can be reached through
 * the path any more. Whether the namespace itself lives on, held by another process, is not visible from a path; the
 * collector checks the host ends the attachment recorded for that ({@link HostLinks}).
 *
 * <p>Paths are resolved in this process's mount namespace: run the collector where the runtime that recorded them
 * runs (the host, for containerd, CRI-O and podman run as root).
 */
public final class Namespaces {
    /** What a path says about its namespace. */
    public enum State {
        LIVE, GONE, UNKNOWN
    }

    /** A judgement and its reason (for the report: "no such file", "a process's namespace: ..."). */
    public record Verdict(State state, String reason) {
    }

    /** nsfs's device number, the same for every namespace file; -1 if it could not be read. */
    private final long nsfsDevice;

    private Namespaces(long nsfsDevice) {
        this.nsfsDevice = nsfsDevice;
    }

    /** Reads nsfs's device from this thread's own network namespace file. */
    public static Namespaces probe() {
        long device = -1;
        try {
            device = (Long) Files.readAttributes(Path.of("/proc/thread-self/ns/net"), "unix:dev").get("dev");
        } catch (IOException | RuntimeException e) {
            // Without /proc nothing can be judged live; every existing path is then "cannot judge".
        }
        return new Namespaces(device);
    }

    /** The judgement of one recorded path. */
    public Verdict judge(String recorded) {
        if (recorded == null || recorded.isEmpty()) {
            return new Verdict(State.UNKNOWN, "no namespace recorded");
        }
        Path path = Path.of(recorded);
        if (!path.isAbsolute()) {
            return new Verdict(State.UNKNOWN, "not a path: " + recorded);
        }
        boolean underProc = path.normalize().startsWith("/proc");
        Map<String, Object> attributes;
        try {
            attributes = Files.readAttributes(path, "unix:dev,ino");
        } catch (NoSuchFileException e) {
            return new Verdict(State.GONE, underProc ? "no such process any more" : "no such file");
        } catch (NotDirectoryException e) {
            return new Verdict(State.GONE, "no such file (a component is not a directory)");
        } catch (IOException e) {
            return new Verdict(State.UNKNOWN, "cannot examine it: " + IoText.reason(e));
        }
        if (underProc) {
            return new Verdict(State.UNKNOWN, "a process's namespace path, and pids are reused: it may name another"
                    + " namespace now");
        }
        if (nsfsDevice < 0) {
            return new Verdict(State.UNKNOWN, "cannot tell a namespace file here (no /proc)");
        }
        if ((Long) attributes.get("dev") != nsfsDevice) {
            return new Verdict(State.GONE, "no longer a namespace (the bind mount is gone, a plain file is left)");
        }
        return new Verdict(State.LIVE, "a namespace");
    }

    /** {@code DEV:INO} of the namespace {@code path} names now, or "" if it names none that can be read. */
    public static String identity(String path) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/') {
            return "";
        }
        try {
            Map<String, Object> id = Files.readAttributes(Path.of(path), "unix:dev,ino");
            return id.get("dev") + ":" + id.get("ino");
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /**
     * Whether {@code path} still names the namespace {@code identity} (as {@link #identity} gave it at ADD) and is
     * one: only then may a later DEL enter it. A path that names another namespace now (a name made again, a pid
     * reused) or none is not entered.
     */
    public boolean stillNames(String path, String identity) {
        if (identity.isEmpty() || judge(path).state() == State.GONE) {
            return false;
        }
        try {
            Map<String, Object> id = Files.readAttributes(Path.of(path), "unix:dev,ino");
            return (Long) id.get("dev") == nsfsDevice && identity.equals(id.get("dev") + ":" + id.get("ino"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
