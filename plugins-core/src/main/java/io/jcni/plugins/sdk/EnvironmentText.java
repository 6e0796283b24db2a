package io.jcni.plugins.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A variable of this process's environment as UTF-8 text, whatever the locale.
 *
 * <p>Why: the JVM decodes the environment with the locale's charset ({@code sun.jnu.encoding}), and runtimes usually
 * exec plugins without {@code LANG}, so under the C locale every non-ASCII byte of, say, {@code CNI_IFNAME} arrives as
 * U+FFFD, even in a name that is valid UTF-8. When a value holds U+FFFD, its bytes are read again from
 * {@code /proc/self/environ} and decoded strictly as UTF-8; a value that is not valid UTF-8 stays as the JVM decoded
 * it (and is then refused by whoever validates it). Only the process's own environment is re-read: a map passed in by
 * an in-process caller is text already.
 */
final class EnvironmentText {
    private static final Path ENVIRON = Path.of("/proc/self/environ");
    /** The kernel's limit for the whole environment of an exec is far below this. */
    private static final int MAX_ENVIRON_BYTES = 4 << 20;

    private EnvironmentText() {
    }

    /** {@code env.get(name)}, or "" if unset, re-decoded as UTF-8 when needed (see the class comment). */
    static String get(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null) {
            return "";
        }
        if (value.indexOf('\uFFFD') < 0 || env != System.getenv()) {
            return value;
        }
        String raw = fromProc(name);
        return raw == null ? value : raw;
    }

    /** The variable's bytes in /proc/self/environ decoded strictly as UTF-8, or null if absent, unreadable or invalid. */
    static String fromProc(String name) {
        byte[] environ;
        try (InputStream in = Files.newInputStream(ENVIRON)) {
            environ = in.readNBytes(MAX_ENVIRON_BYTES);
        } catch (IOException | SecurityException e) {
            return null;
        }
        byte[] prefix = (name + "=").getBytes(StandardCharsets.UTF_8);
        int start = 0;
        while (start < environ.length) {
            int end = start;
            while (end < environ.length && environ[end] != 0) {
                end++;
            }
            if (end - start >= prefix.length && startsWith(environ, start, prefix)) {
                try {
                    return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(environ, start + prefix.length, end - start - prefix.length))
                            .toString();
                } catch (CharacterCodingException e) {
                    return null;
                }
            }
            start = end + 1;
        }
        return null;
    }

    private static boolean startsWith(byte[] bytes, int at, byte[] prefix) {
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
