package io.jcni.plugins.sdk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * A path from a call's input (a configuration's {@code dataDir}, {@code resolvConf}, a TLS file), as the caller
 * resolves it: an absolute one as it is, a relative one against the working directory of the thread running the call.
 * For an exec'd plugin that is the process's, which the runtime gave it; in jcni's plugin service it is the client's
 * (the service runs the call there, on that thread alone). Never the JVM's {@code user.dir}, which
 * {@code Path.toAbsolutePath()} and {@code Files.createDirectories} resolve relative paths against, and which in the
 * service is the service's own directory.
 */
public final class CallerPath {
    private static final Path THREAD_CWD = Path.of("/proc/thread-self/cwd");

    private CallerPath() {
    }

    /**
     * {@code text} as an absolute path.
     *
     * @throws InvalidPathException if {@code text} is not a path (a NUL in it)
     */
    public static Path of(String text) {
        Path path = Path.of(text);
        if (path.isAbsolute()) {
            return path;
        }
        try {
            Path cwd = Files.readSymbolicLink(THREAD_CWD);
            if (cwd.isAbsolute()) {
                return cwd.resolve(path).normalize();
            }
        } catch (IOException | UnsupportedOperationException e) {
            // no /proc: the path stays relative, and the kernel resolves it against the thread's directory
        }
        return path;
    }
}
