package io.jcni.it.meta;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A CNI_PATH directory mixing plugins of both implementations (e.g. jcni's bridge with Go's bandwidth): one small
 * script per plugin, named for its type, that execs it, so that each type resolves to exactly the binary a test
 * chose. Scripts rather than symbolic links: the temp dir's deletion warns about links leaving it.
 */
final class PluginDirs {
    private PluginDirs() {
    }

    static Path of(Path dir, Path... plugins) throws IOException {
        Files.createDirectories(dir);
        for (Path plugin : plugins) {
            Path script = dir.resolve(plugin.getFileName().toString());
            Files.writeString(script, "#!/bin/sh\nexec '" + plugin + "' \"$@\"\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return dir;
    }
}
