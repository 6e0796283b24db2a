package io.jcni.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Recognizes jcni's own plugin launchers: every program plugins-core writes into {@code dist/cni/bin/<type>} (the
 * plugin client, an ELF binary, in a note the linker places right after its program headers) and
 * {@code dist/cni/jvm/<type>} (the JVM launcher script) carries, within its first {@value #MARKER_WINDOW} bytes, the
 * line {@link #markerLine(String)}:
 * <pre>    # jcni-launcher: plugin=&lt;type&gt; version=&lt;jcni version&gt;</pre>
 * A launcher of another jcni version is not recognized: its classes may differ from the ones in this JVM.
 */
public final class JcniLaunchers {
    /** How many bytes at the start of a file are searched for the marker: one page, one read. */
    public static final int MARKER_WINDOW = 4096;

    private static final String PREFIX = "# jcni-launcher: ";
    private static final String VERSION = readVersion();

    private JcniLaunchers() {
    }

    /**
     * The plugin type of the jcni launcher at this path (after resolving symlinks), or empty if it is not one: missing
     * or unreadable file, not a regular file, no marker line in the first {@value #MARKER_WINDOW} bytes, or a
     * different jcni version.
     */
    public static Optional<String> pluginType(Path executable) {
        byte[] head;
        try {
            Path real = executable.toRealPath();
            if (!Files.isRegularFile(real)) {
                return Optional.empty();
            }
            try (InputStream in = Files.newInputStream(real)) {
                head = in.readNBytes(MARKER_WINDOW);
            }
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        String text = new String(head, StandardCharsets.ISO_8859_1);
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            boolean complete = end >= 0;
            if (!complete) {
                end = text.length();
            }
            String line = text.substring(start, end);
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            // A line cut off by the window is not trusted: its version could continue past it.
            if (complete || head.length < MARKER_WINDOW) {
                Optional<String> type = parse(line);
                if (type.isPresent()) {
                    return type;
                }
            }
            start = end + 1;
        }
        return Optional.empty();
    }

    private static Optional<String> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        // Two fields separated by spaces; split by hand: a regex would initialize java.util.regex in every plugin
        // that delegates.
        String rest = line.substring(PREFIX.length()).trim();
        int gap = rest.indexOf(' ');
        if (gap < 0) {
            return Optional.empty();
        }
        String first = rest.substring(0, gap);
        String second = rest.substring(gap).stripLeading();
        if (second.indexOf(' ') >= 0 || !first.startsWith("plugin=") || !second.startsWith("version=")) {
            return Optional.empty();
        }
        String type = first.substring("plugin=".length());
        String version = second.substring("version=".length());
        if (!version.equals(VERSION) || !isPluginType(type)) {
            return Optional.empty();
        }
        return Optional.of(type);
    }

    private static boolean isPluginType(String type) {
        return !type.isEmpty() && !type.equals(".") && !type.equals("..") && type.indexOf('/') < 0
                && type.indexOf('\\') < 0;
    }

    /** The exact line plugins-core writes into each launcher (without a line terminator). */
    public static String markerLine(String type) {
        if (!isPluginType(type) || type.indexOf(' ') >= 0 || type.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("not a plugin type: \"" + type + "\"");
        }
        return PREFIX + "plugin=" + type + " version=" + VERSION;
    }

    /** This jcni's version (the Maven project version, from a resource filtered at build time). */
    public static String version() {
        return VERSION;
    }

    /**
     * The version javac recorded in this module's descriptor (Maven passes the project's version), which the JVM has
     * in memory already; on the class path, the resource. Opening a resource of a jlink image opens the image's reader,
     * about 1.5 ms in a plugin's exec. {@code JcniLaunchersTest} checks that both say the same.
     */
    private static String readVersion() {
        Module module = JcniLaunchers.class.getModule();
        if (module.isNamed()) {
            Optional<String> recorded = module.getDescriptor().rawVersion();
            if (recorded.isPresent() && !recorded.get().isEmpty()) {
                return recorded.get();
            }
        }
        return resourceVersion();
    }

    /** The version in the resource the build filters (the class path's source, and the descriptor's check). */
    static String resourceVersion() {
        try (InputStream in = JcniLaunchers.class.getResourceAsStream("internal/jcni-version.txt")) {
            if (in == null) {
                throw new IllegalStateException("io/jcni/runtime/internal/jcni-version.txt is missing from the "
                        + "runtime module: the build did not package it");
            }
            String version = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            if (version.isEmpty() || version.startsWith("$")) {
                throw new IllegalStateException("jcni-version.txt was not filtered by the build: \"" + version + "\"");
            }
            return version;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read jcni-version.txt", e);
        }
    }
}
