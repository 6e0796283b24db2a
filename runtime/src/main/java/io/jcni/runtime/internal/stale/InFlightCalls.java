package io.jcni.runtime.internal.stale;

import io.jcni.spec.GcAttachment;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The attachments that CNI plugin processes on the node are adding or checking right now, from their environment
 * ({@code CNI_COMMAND}, {@code CNI_CONTAINERID}, {@code CNI_IFNAME} in {@code /proc/PID/environ}): any runtime's, Go's
 * libcni included, exec'd plugins and jcni's clients of the plugin service alike.
 *
 * <p>A collection counts them as valid: an ADD in flight is in no cache yet, and jcni's gate only holds back jcni's
 * runtimes. A sample misses a call between two of its plugins or between its last plugin and its cache write (Go
 * libcni's are short: marshalling, a fork), so the collector samples before and after it lists the cache; see the
 * README for the limit that remains.
 */
public final class InFlightCalls {
    /** The largest environment read of one process (the spec's variables come first in practice). */
    private static final int MAX_ENVIRON = 1 << 20;

    private InFlightCalls() {
    }

    /** The attachments of the ADD and CHECK calls running now in other processes. */
    public static Set<GcAttachment> sample() {
        Set<GcAttachment> found = new LinkedHashSet<>();
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path proc : procs) {
                String name = proc.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0)) || name.equals(Long.toString(self))) {
                    continue;
                }
                Map<String, String> env = cniVariables(proc.resolve("environ"));
                String command = env.getOrDefault("CNI_COMMAND", "");
                String containerId = env.getOrDefault("CNI_CONTAINERID", "");
                String ifName = env.getOrDefault("CNI_IFNAME", "");
                if ((command.equals("ADD") || command.equals("CHECK")) && !containerId.isEmpty()
                        && !ifName.isEmpty()) {
                    found.add(new GcAttachment(containerId, ifName));
                }
            }
        } catch (IOException e) {
            // No /proc: nothing to add.
        }
        return found;
    }

    private static Map<String, String> cniVariables(Path environ) {
        Map<String, String> vars = new HashMap<>();
        byte[] bytes;
        try (InputStream in = Files.newInputStream(environ)) {
            bytes = in.readNBytes(MAX_ENVIRON);
        } catch (IOException | SecurityException e) {
            return vars; // gone, or a kernel thread
        }
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == 0) {
                if (i - start > 4 && bytes[start] == 'C' && bytes[start + 1] == 'N' && bytes[start + 2] == 'I'
                        && bytes[start + 3] == '_') {
                    String pair = new String(bytes, start, i - start, StandardCharsets.UTF_8);
                    int eq = pair.indexOf('=');
                    if (eq > 0) {
                        vars.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
                start = i + 1;
            }
        }
        return vars;
    }
}
