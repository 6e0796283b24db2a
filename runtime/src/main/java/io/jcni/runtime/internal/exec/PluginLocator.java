package io.jcni.runtime.internal.exec;

import io.jcni.spec.CniError;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds a plugin's executable in CNI_PATH, as libcni's {@code FindInPath} does, with its messages.
 *
 * <ul>
 * <li>A {@code type} containing a path separator is refused (CVE-2021-20206): a configuration must not be able to run
 * a program outside CNI_PATH ({@code invalid plugin name: ../x}).</li>
 * <li>The directories are searched in order; the first <em>regular, executable</em> file named {@code type} wins
 * (symlinks are followed, as {@code os.Stat} does). libcni accepts any regular file and then fails to exec a
 * non-executable one; jcni skips it and keeps searching, so a stray non-executable file cannot shadow a plugin in a
 * later directory.</li>
 * <li>Empty CNI_PATH elements are skipped (Go would resolve the name relative to the working directory).</li>
 * </ul>
 */
public final class PluginLocator {
    private PluginLocator() {
    }

    /** Splits a CNI_PATH value on {@code :}, dropping empty elements. */
    public static List<Path> splitPath(String cniPath) {
        List<Path> dirs = new ArrayList<>();
        if (cniPath == null) {
            return dirs;
        }
        int start = 0;
        while (start <= cniPath.length()) {
            int end = cniPath.indexOf(':', start);
            if (end < 0) {
                end = cniPath.length();
            }
            if (end > start) {
                try {
                    dirs.add(Path.of(cniPath.substring(start, end)));
                } catch (InvalidPathException e) {
                    // A NUL inside a CNI_PATH element: no file can be found there.
                }
            }
            start = end + 1;
        }
        return dirs;
    }

    /** Joins directories into a CNI_PATH value. */
    public static String joinPath(List<Path> dirs) {
        StringBuilder out = new StringBuilder();
        for (Path dir : dirs) {
            if (!out.isEmpty()) {
                out.append(':');
            }
            out.append(dir);
        }
        return out.toString();
    }

    /**
     * The executable for {@code type}; failures are code 999 with libcni's texts ({@code no plugin name provided},
     * {@code invalid plugin name: T}, {@code no paths provided}, {@code failed to find plugin "T" in path [D1 D2]}).
     */
    public static Path find(String type, List<Path> dirs) throws PluginFailure {
        if (type == null || type.isEmpty()) {
            throw PluginFailure.engine(CniError.INTERNAL, "no plugin name provided");
        }
        if (type.indexOf('/') >= 0 || type.indexOf('\0') >= 0) {
            throw PluginFailure.engine(CniError.INTERNAL, "invalid plugin name: " + type);
        }
        if (dirs.isEmpty()) {
            throw PluginFailure.engine(CniError.INTERNAL, "no paths provided");
        }
        for (Path dir : dirs) {
            Path candidate = dir.resolve(type);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        StringBuilder list = new StringBuilder();
        for (Path dir : dirs) {
            if (!list.isEmpty()) {
                list.append(' ');
            }
            list.append(dir);
        }
        throw PluginFailure.engine(CniError.INTERNAL,
                "failed to find plugin \"" + type + "\" in path [" + list + "]");
    }
}
