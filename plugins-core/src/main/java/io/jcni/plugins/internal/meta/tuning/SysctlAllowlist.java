package io.jcni.plugins.internal.meta.tuning;

import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The administrator's sysctl allowlist, as newer upstream tuning reads it (Go 1.1.1 has none): when the file exists,
 * every key of {@code sysctl} must match one of its lines, each a regular expression found anywhere in the key as
 * written in the configuration (Go's {@code regexp.MatchString}, unanchored; anchor with {@code ^...$}). Blank lines
 * are ignored. No file: every key under {@code net} is allowed.
 *
 * <p>The path is not a configuration key on purpose: whoever writes network configurations must not be able to pick
 * the list that restricts them. Tests construct the plugin with another path.
 */
final class SysctlAllowlist {
    /** Upstream's location. */
    static final Path DEFAULT = Path.of("/etc/cni/tuning/allowlist.conf");

    private final Path file;
    private final List<String> lines;
    private final List<Pattern> patterns;

    private SysctlAllowlist(Path file, List<String> lines, List<Pattern> patterns) {
        this.file = file;
        this.lines = lines;
        this.patterns = patterns;
    }

    /**
     * The allowlist in {@code file}, or null when there is no such file. Only a regular file (links followed) of at
     * most 1 MiB is read: a FIFO there must not block the plugin.
     */
    static SysctlAllowlist load(Path file) throws CniException {
        String text;
        try {
            text = new String(BoundedFiles.read(file, 1 << 20, BoundedFiles.Links.FOLLOW), StandardCharsets.UTF_8);
        } catch (NoSuchFileException absent) {
            return null;
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "failed to read the sysctl allowlist " + file + ": "
                    + IoText.reason(e));
        }
        List<String> lines = new ArrayList<>();
        List<Pattern> patterns = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String entry = line.strip();
            if (entry.isEmpty()) {
                continue;
            }
            try {
                patterns.add(Pattern.compile(entry));
            } catch (PatternSyntaxException e) {
                throw new CniException(CniError.INTERNAL, "invalid pattern in the sysctl allowlist " + file + ": "
                        + entry, e.getDescription());
            }
            lines.add(entry);
        }
        return new SysctlAllowlist(file, List.copyOf(lines), List.copyOf(patterns));
    }

    /** Throws code 7 unless {@code key} (as written in the configuration) matches a line. */
    void check(String key) throws CniException {
        for (Pattern pattern : patterns) {
            if (pattern.matcher(key).find()) {
                return;
            }
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Sysctl " + key + " is not allowed. Only the "
                + "following sysctls are allowed: " + lines, "allowlist " + file);
    }
}
