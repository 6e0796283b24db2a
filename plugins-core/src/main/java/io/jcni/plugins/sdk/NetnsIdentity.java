package io.jcni.plugins.sdk;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether a CNI_NETNS path names the network namespace the plugin runs in: the same (device, inode) as
 * {@code /proc/thread-self/ns/net}, which is how the kernel identifies a namespace (a bind mount under /var/run/netns
 * and a /proc/PID/ns/net link of the same namespace stat to the same pair). The calling thread's namespace, not the
 * process's: jcni's plugin service runs a call on a thread in its client's namespace, and for an exec'd plugin the two
 * are the same. A namespace the caller handed over ({@link CallerNetns}) is examined through its descriptor.
 *
 * <p>Deliberately without netlink-ffm: a {@code stat} through NIO costs nothing at start-up, while the first FFM
 * downcall costs tens of milliseconds, and IPAM plugins such as host-local never need FFM otherwise.
 */
public final class NetnsIdentity {
    private static final String OWN = "/proc/thread-self/ns/net";
    private static final String ATTRIBUTES = "unix:dev,ino";

    private NetnsIdentity() {
    }

    /** What the check found. */
    public enum Verdict {
        /** The path is this process's namespace. */
        OWN,
        /** The path exists and is another file or namespace. */
        OTHER,
        /** The path does not exist or cannot be examined: not ours, and the plugin reports what it finds on use. */
        UNREADABLE
    }

    /** Compares {@code netns} with this process's namespace; never throws. */
    public static Verdict check(String netns) {
        long[] own;
        long[] other;
        try {
            own = devIno(Path.of(OWN));
        } catch (IOException | InvalidPathException | UnsupportedOperationException e) {
            return Verdict.UNREADABLE;
        }
        try {
            Path examined = CallerNetns.examinable(netns);
            if (examined == null) {
                return Verdict.UNREADABLE;
            }
            other = devIno(examined);
        } catch (IOException | InvalidPathException | UnsupportedOperationException e) {
            return Verdict.UNREADABLE;
        }
        return own[0] == other[0] && own[1] == other[1] ? Verdict.OWN : Verdict.OTHER;
    }

    private static long[] devIno(Path path) throws IOException {
        Map<String, Object> attributes = java.nio.file.Files.readAttributes(path, ATTRIBUTES);
        Object dev = attributes.get("dev");
        Object ino = attributes.get("ino");
        if (!(dev instanceof Long d) || !(ino instanceof Long i)) {
            throw new IOException("no unix:dev/ino attributes for " + path);
        }
        return new long[] {d, i};
    }
}
