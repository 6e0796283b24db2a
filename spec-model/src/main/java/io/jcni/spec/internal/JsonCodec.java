package io.jcni.spec.internal;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Json;
import java.nio.charset.StandardCharsets;

/**
 * The reader and writer under every decode and encode: {@link JsonReader} and {@link JsonWriter}, this module's own,
 * with no library underneath. They run inside every plugin exec, where jackson-core (which this codec used before)
 * cost about 10 ms per start-up in class initialization alone (see the package documentation).
 *
 * <p>Limits against absurd input, checked with messages naming the place: {@link #MAX_DOCUMENT_BYTES},
 * {@link #MAX_DEPTH}, {@link #MAX_STRING_CHARS}, {@link #MAX_NUMBER_CHARS}.
 */
public final class JsonCodec {
    /** Largest document accepted (4 MiB): configurations and results are kilobytes. */
    public static final int MAX_DOCUMENT_BYTES = 4 << 20;
    /** Deepest nesting of arrays and objects accepted. */
    public static final int MAX_DEPTH = 128;
    /** Longest string (value or key) accepted, in chars. */
    public static final int MAX_STRING_CHARS = 1 << 20;
    /** Longest number literal accepted. */
    public static final int MAX_NUMBER_CHARS = 256;

    private JsonCodec() {
    }

    // ---------------------------------------------------------------------------------------------- reading

    /** Parses one JSON document into the value model; anything malformed or over a limit is code 6. */
    public static Json parse(byte[] input) throws CniException {
        if (input == null) {
            throw new CniException(CniError.DECODING_FAILURE, "invalid JSON: no input");
        }
        if (input.length > MAX_DOCUMENT_BYTES) {
            throw new CniException(CniError.DECODING_FAILURE,
                    "JSON document too large: " + input.length + " bytes, limit " + MAX_DOCUMENT_BYTES);
        }
        return JsonReader.parse(input);
    }

    /** How a path is shown in messages: the path itself, or "JSON document" for the root. */
    public static String where(String path) {
        return path.isEmpty() ? "JSON document" : path;
    }

    /** Replaces unpaired surrogates by U+FFFD (Go's encoding/json does the same), so the text encodes as UTF-8. */
    public static String sanitize(String value) {
        int length = value.length();
        int i = 0;
        while (i < length && !Character.isSurrogate(value.charAt(i))) {
            i++;
        }
        if (i == length) {
            return value;
        }
        StringBuilder clean = new StringBuilder(length);
        clean.append(value, 0, i);
        for (; i < length; i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(value.charAt(i + 1))) {
                clean.append(c).append(value.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                clean.append('\uFFFD');
            } else {
                clean.append(c);
            }
        }
        return clean.toString();
    }

    // ---------------------------------------------------------------------------------------------- writing

    /** {@code value} as bytes: compact, or indented as Go's MarshalIndent with four spaces. */
    public static byte[] bytes(boolean indented, Json value) {
        return JsonWriter.write(value, indented);
    }

    /** Compact JSON text of a value (for {@code toString()}). */
    public static String toJson(Json value) {
        return new String(JsonWriter.write(value, false), StandardCharsets.UTF_8);
    }
}
