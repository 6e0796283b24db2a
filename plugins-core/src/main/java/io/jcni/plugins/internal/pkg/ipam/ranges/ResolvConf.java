package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.plugins.sdk.CallerPath;
import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Dns;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A resolv.conf read as Go host-local reads it (its {@code parseResolvConf}): lines trimmed, empty lines and lines
 * starting with {@code #} or {@code ;} skipped, lines of fewer than two fields skipped; {@code nameserver} adds its
 * first argument, {@code domain} sets it (the last one wins), {@code search} and {@code options} add all their
 * arguments. Other keywords are ignored.
 */
public final class ResolvConf {
    private ResolvConf() {
    }

    /** Largest resolv.conf read: the real ones are a few hundred bytes. */
    static final int MAX_BYTES = 1 << 20;

    /**
     * Reads {@code path}; a missing or unreadable file is code 5 naming it. Only a regular file (links followed) of at
     * most {@link #MAX_BYTES} is read: a FIFO named in the configuration must not block the ADD.
     */
    public static Dns read(String path) throws CniException {
        byte[] bytes;
        try {
            bytes = BoundedFiles.read(CallerPath.of(path), MAX_BYTES, BoundedFiles.Links.FOLLOW);
        } catch (InvalidPathException e) {
            throw new CniException(CniError.IO_FAILURE, "ipam.resolvConf: cannot read \"" + path
                    + "\": not a valid path");
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "ipam.resolvConf: cannot read \"" + path + "\": "
                    + IoText.reason(e));
        }
        return parse(new String(bytes, StandardCharsets.UTF_8));
    }

    /** Parses resolv.conf text. */
    public static Dns parse(String text) {
        List<String> nameservers = new ArrayList<>();
        String domain = "";
        List<String> search = new ArrayList<>();
        List<String> options = new ArrayList<>();
        for (String raw : text.split("\n", -1)) {
            String line = raw.strip();
            if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == ';') {
                continue;
            }
            List<String> fields = fields(line);
            if (fields.size() < 2) {
                continue;
            }
            switch (fields.get(0)) {
                case "nameserver":
                    nameservers.add(fields.get(1));
                    break;
                case "domain":
                    domain = fields.get(1);
                    break;
                case "search":
                    search.addAll(fields.subList(1, fields.size()));
                    break;
                case "options":
                    options.addAll(fields.subList(1, fields.size()));
                    break;
                default:
                    break;
            }
        }
        return new Dns(nameservers, domain, search, options);
    }

    /** Go's {@code strings.Fields} for ASCII whitespace. */
    private static List<String> fields(String line) {
        List<String> fields = new ArrayList<>();
        int i = 0;
        while (i < line.length()) {
            while (i < line.length() && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < line.length() && !Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            if (i > start) {
                fields.add(line.substring(start, i));
            }
        }
        return fields;
    }
}
