package io.jcni.spec.internal;

import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonBoolean;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Writes the value model as UTF-8 JSON, compact or in the layout of Go's {@code json.MarshalIndent(v, "", "    ")}
 * (which libcni uses to print results and errors: four spaces per level, {@code "key": value}, empty containers as
 * {@code {}} and {@code []}, no trailing newline).
 *
 * <p>The bytes are those jackson-core's generator wrote before this class replaced it (a test holds them equal):
 * {@code "} and {@code \} escaped, control characters as {@code \b \t \n \f \r} or {@code \}{@code u00XX} with
 * upper-case hex, everything else (including {@code /}, U+007F and U+2028) unescaped, surrogate pairs as one 4-byte
 * UTF-8 sequence. Keys go through {@link JsonCodec#sanitize}; string values are sanitized by {@link JsonString}.
 */
final class JsonWriter {
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E',
            'F'};

    private byte[] out;
    private int size;
    private final boolean indented;

    private JsonWriter(boolean indented) {
        this.out = new byte[512];
        this.indented = indented;
    }

    static byte[] write(Json value, boolean indented) {
        JsonWriter writer = new JsonWriter(indented);
        writer.value(value, 0);
        return Arrays.copyOf(writer.out, writer.size);
    }

    // instanceof rather than a pattern switch: a type switch costs an invokedynamic bootstrap at start-up.
    private void value(Json value, int depth) {
        if (value instanceof JsonObject object) {
            object(object.members(), depth);
        } else if (value instanceof JsonArray array) {
            array(array.elements(), depth);
        } else if (value instanceof JsonString string) {
            string(string.value());
        } else if (value instanceof JsonNumber number) {
            ascii(number.literal());
        } else if (value instanceof JsonBoolean bool) {
            ascii(bool.value() ? "true" : "false");
        } else {
            ascii("null");
        }
    }

    private void object(Map<String, Json> members, int depth) {
        put('{');
        boolean first = true;
        for (Map.Entry<String, Json> member : members.entrySet()) {
            if (!first) {
                put(',');
            }
            first = false;
            newline(depth + 1);
            string(JsonCodec.sanitize(member.getKey()));
            put(':');
            if (indented) {
                put(' ');
            }
            value(member.getValue(), depth + 1);
        }
        if (!first) {
            newline(depth);
        }
        put('}');
    }

    private void array(List<Json> elements, int depth) {
        put('[');
        for (int i = 0; i < elements.size(); i++) {
            if (i > 0) {
                put(',');
            }
            newline(depth + 1);
            value(elements.get(i), depth + 1);
        }
        if (!elements.isEmpty()) {
            newline(depth);
        }
        put(']');
    }

    private void newline(int depth) {
        if (!indented) {
            return;
        }
        ensure(1 + 4 * depth);
        out[size++] = '\n';
        for (int i = 0; i < 4 * depth; i++) {
            out[size++] = ' ';
        }
    }

    private void string(String s) {
        int length = s.length();
        // Worst case per char: 6 bytes (a six-character escape); 3 bytes of UTF-8 per char covers surrogate pairs.
        ensure(2 + 6 * length);
        out[size++] = '"';
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                out[size++] = (byte) c;
            } else if (c < 0x80) {
                escape(c);
            } else if (c < 0x800) {
                out[size++] = (byte) (0xC0 | c >> 6);
                out[size++] = (byte) (0x80 | c & 0x3F);
            } else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out[size++] = (byte) (0xF0 | cp >> 18);
                out[size++] = (byte) (0x80 | cp >> 12 & 0x3F);
                out[size++] = (byte) (0x80 | cp >> 6 & 0x3F);
                out[size++] = (byte) (0x80 | cp & 0x3F);
            } else {
                // A lone surrogate cannot reach here (strings are sanitized); encoded as its 3 bytes if it did.
                out[size++] = (byte) (0xE0 | c >> 12);
                out[size++] = (byte) (0x80 | c >> 6 & 0x3F);
                out[size++] = (byte) (0x80 | c & 0x3F);
            }
        }
        out[size++] = '"';
    }

    private void escape(char c) {
        out[size++] = '\\';
        switch (c) {
            case '"' -> out[size++] = '"';
            case '\\' -> out[size++] = '\\';
            case '\b' -> out[size++] = 'b';
            case '\t' -> out[size++] = 't';
            case '\n' -> out[size++] = 'n';
            case '\f' -> out[size++] = 'f';
            case '\r' -> out[size++] = 'r';
            default -> {
                out[size++] = 'u';
                out[size++] = '0';
                out[size++] = '0';
                out[size++] = HEX[c >> 4];
                out[size++] = HEX[c & 0xF];
            }
        }
    }

    /** Text known to be ASCII: number literals and keywords. */
    private void ascii(String s) {
        int length = s.length();
        ensure(length);
        for (int i = 0; i < length; i++) {
            out[size++] = (byte) s.charAt(i);
        }
    }

    private void put(int b) {
        ensure(1);
        out[size++] = (byte) b;
    }

    private void ensure(int more) {
        if (size + more > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, size + more));
        }
    }
}
