package io.jcni.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Fake plugins for unit tests: small {@code /bin/sh} scripts written into a test's temporary CNI_PATH directory. They
 * exercise the exec engine with real processes, pipes and exit statuses without needing Go or the kernel.
 */
public final class ScriptPlugins {
    private ScriptPlugins() {
    }

    /** Writes an executable {@code #!/bin/sh} script {@code dir/name} with {@code body}. */
    public static Path write(Path dir, String name, String body) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    /**
     * A plugin that records its stdin into {@code <dir>/<name>.stdin} and its CNI_* environment into
     * {@code <dir>/<name>.env} (appending one call per line) and prints {@code stdout}.
     */
    public static Path recording(Path dir, String name, String stdout) throws IOException {
        String record = dir.resolve(name).toString();
        return write(dir, name, "cat >> '" + record + ".stdin'; echo >> '" + record + ".stdin'\n"
                + "echo \"$CNI_COMMAND|$CNI_CONTAINERID|$CNI_NETNS|$CNI_IFNAME|$CNI_ARGS|$CNI_PATH\" >> '" + record
                + ".env'\n"
                + "printf '%s' '" + stdout.replace("'", "'\\''") + "'");
    }
}
