package io.jcni.spec.internal;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonBoolean;
import io.jcni.spec.JsonNull;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;

/**
 * A strict RFC 8259 parser from UTF-8 bytes into the value model: one pass over the array, recursive descent bounded
 * by {@link JsonCodec#MAX_DEPTH}, no intermediate tokens. One instance per document; not thread-safe.
 *
 * <p>What it accepts is exactly JSON: no comments, single quotes, trailing commas, leading zeros, {@code NaN}, or
 * unescaped control characters in strings. A UTF-8 byte order mark before the document is skipped. Inside strings,
 * bytes that are not valid UTF-8 decode as U+FFFD one byte at a time, as Go's {@code encoding/json} does; outside
 * strings they are syntax errors. {@code \}{@code u} escapes that leave a surrogate unpaired become U+FFFD (in keys
 * too, as in Go). Number literals are kept verbatim.
 *
 * <p>Every failure is a {@link CniException} with code 6: syntax errors as {@code invalid JSON at line L, column C:
 * <what was found and what was expected>} (line and column count from 1, columns in characters), limits as
 * {@code <path>: <limit>} with the JSON path of the value ({@code plugins[0].ipam.ranges}).
 */
final class JsonReader {
    private final byte[] in;
    private final int end;
    private int pos;
    /** The path of the value being read, rendered only for an error: a key, or null and an index. */
    private final String[] pathKeys = new String[JsonCodec.MAX_DEPTH + 1];
    private final int[] pathIndexes = new int[JsonCodec.MAX_DEPTH + 1];
    private StringBuilder scratch;

    private JsonReader(byte[] in) {
        this.in = in;
        this.end = in.length;
    }

    /** Parses {@code input}, which the caller has checked against the document-size limit. */
    static Json parse(byte[] input) throws CniException {
        JsonReader reader = new JsonReader(input);
        if (input.length >= 3 && (input[0] & 0xFF) == 0xEF && (input[1] & 0xFF) == 0xBB && (input[2] & 0xFF) == 0xBF) {
            reader.pos = 3;
        }
        reader.skipWhitespace();
        if (reader.pos == reader.end) {
            throw new CniException(CniError.DECODING_FAILURE, "invalid JSON: empty input");
        }
        Json value = reader.value(0);
        reader.skipWhitespace();
        if (reader.pos < reader.end) {
            throw reader.syntax(reader.pos, "unexpected content after the top-level value");
        }
        return value;
    }

    // ------------------------------------------------------------------------------------------------ values

    /** The value starting at the next non-blank byte; {@code depth} is its nesting level (the root is 0). */
    private Json value(int depth) throws CniException {
        skipWhitespace();
        if (pos == end) {
            throw syntax(pos, "unexpected end of input, expected a value");
        }
        int b = in[pos];
        switch (b) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return new JsonString(checkLength(string(), depth));
            case 't':
                literal("true");
                return JsonBoolean.TRUE;
            case 'f':
                literal("false");
                return JsonBoolean.FALSE;
            case 'n':
                literal("null");
                return JsonNull.INSTANCE;
            default:
                if (b == '-' || (b >= '0' && b <= '9')) {
                    return number(depth);
                }
                throw syntax(pos, "unexpected " + describe(pos) + ", expected a value" + hint());
        }
    }

    private JsonObject object(int depth) throws CniException {
        checkDepth(depth);
        pos++;
        LinkedHashMap<String, Json> members = new LinkedHashMap<>();
        skipWhitespace();
        if (pos < end && in[pos] == '}') {
            pos++;
            return JsonObject.of(members);
        }
        while (true) {
            skipWhitespace();
            if (pos == end || in[pos] != '"') {
                throw syntax(pos, found() + (members.isEmpty() ? ", expected a string key or '}'"
                        : ", expected a string key after ','") + hint());
            }
            String key = checkLength(string(), depth);
            skipWhitespace();
            if (pos == end || in[pos] != ':') {
                throw syntax(pos, found() + ", expected ':' after the key");
            }
            pos++;
            pathKeys[depth + 1] = key;
            Json value = value(depth + 1);
            members.remove(key); // a repeated key: the last value, at the last position (JsonObject)
            members.put(key, value);
            skipWhitespace();
            if (pos < end && in[pos] == ',') {
                pos++;
            } else if (pos < end && in[pos] == '}') {
                pos++;
                return JsonObject.of(members);
            } else {
                throw syntax(pos, found() + ", expected ',' or '}' in an object");
            }
        }
    }

    private JsonArray array(int depth) throws CniException {
        checkDepth(depth);
        pos++;
        ArrayList<Json> elements = new ArrayList<>();
        skipWhitespace();
        if (pos < end && in[pos] == ']') {
            pos++;
            return new JsonArray(elements);
        }
        while (true) {
            pathKeys[depth + 1] = null;
            pathIndexes[depth + 1] = elements.size();
            elements.add(value(depth + 1));
            skipWhitespace();
            if (pos < end && in[pos] == ',') {
                pos++;
            } else if (pos < end && in[pos] == ']') {
                pos++;
                return new JsonArray(elements);
            } else {
                throw syntax(pos, found() + ", expected ',' or ']' in an array");
            }
        }
    }

    private void literal(String word) throws CniException {
        int start = pos;
        for (int i = 0; i < word.length(); i++, pos++) {
            if (pos == end || in[pos] != word.charAt(i)) {
                throw syntax(start, "invalid literal, expected '" + word + "'");
            }
        }
    }

    /** {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}, kept as written. */
    private JsonNumber number(int depth) throws CniException {
        int start = pos;
        if (in[pos] == '-') {
            pos++;
        }
        if (pos < end && in[pos] == '0') {
            pos++;
            if (pos < end && isDigit(in[pos])) {
                throw syntax(pos, "invalid number: leading zeros are not allowed");
            }
        } else {
            digits("a digit after '-'");
        }
        if (pos < end && in[pos] == '.') {
            pos++;
            digits("a digit after the decimal point");
        }
        if (pos < end && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            if (pos < end && (in[pos] == '+' || in[pos] == '-')) {
                pos++;
            }
            digits("a digit in the exponent");
        }
        int length = pos - start;
        if (length > JsonCodec.MAX_NUMBER_CHARS) {
            throw limit(depth, "number literal too long (" + length + " chars, limit " + JsonCodec.MAX_NUMBER_CHARS
                    + ")");
        }
        return new JsonNumber(new String(in, start, length, StandardCharsets.ISO_8859_1));
    }

    private void digits(String expected) throws CniException {
        if (pos == end || !isDigit(in[pos])) {
            throw syntax(pos, "invalid number: " + found() + ", expected " + expected);
        }
        while (pos < end && isDigit(in[pos])) {
            pos++;
        }
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    // ------------------------------------------------------------------------------------------------ strings

    /** The string whose opening quote is at {@code pos}; leaves {@code pos} after the closing quote. */
    private String string() throws CniException {
        int start = ++pos;
        // Fast path: printable ASCII without escapes, the shape of nearly every string in a CNI document.
        for (int i = start; i < end; i++) {
            int b = in[i];
            if (b == '"') {
                pos = i + 1;
                return new String(in, start, i - start, StandardCharsets.ISO_8859_1);
            }
            if (b < 0x20 || b == '\\') { // b < 0 for every byte >= 0x80
                break;
            }
        }
        return slowString(start);
    }

    private String slowString(int start) throws CniException {
        StringBuilder text = scratch == null ? scratch = new StringBuilder(64) : scratch;
        text.setLength(0);
        boolean surrogates = false;
        pos = start;
        while (true) {
            if (pos == end) {
                throw syntax(pos, "unexpected end of input in a string");
            }
            int b = in[pos] & 0xFF;
            if (b == '"') {
                pos++;
                String value = text.toString();
                return surrogates ? JsonCodec.sanitize(value) : value;
            }
            if (b == '\\') {
                char c = escape();
                surrogates |= Character.isSurrogate(c);
                text.append(c);
            } else if (b < 0x20) {
                throw syntax(pos, "control character " + codePoint(b) + " in a string must be escaped");
            } else if (b < 0x80) {
                text.append((char) b);
                pos++;
            } else {
                utf8(text, b);
            }
        }
    }

    /** The escape at {@code pos} (a backslash); leaves {@code pos} after it. */
    private char escape() throws CniException {
        int at = pos++;
        if (pos == end) {
            throw syntax(pos, "unexpected end of input in a string");
        }
        int e = in[pos++];
        switch (e) {
            case '"':
                return '"';
            case '\\':
                return '\\';
            case '/':
                return '/';
            case 'b':
                return '\b';
            case 'f':
                return '\f';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            case 'u': {
                int value = 0;
                for (int i = 0; i < 4; i++, pos++) {
                    int digit = pos < end ? Character.digit(in[pos], 16) : -1;
                    if (digit < 0) {
                        throw syntax(at, "invalid \\u escape: expected four hexadecimal digits");
                    }
                    value = value << 4 | digit;
                }
                return (char) value;
            }
            default:
                throw syntax(at, "invalid escape '\\" + (e >= 0x20 && e < 0x7F ? String.valueOf((char) e)
                        : codePoint(e & 0xFF)) + "' in a string");
        }
    }

    /**
     * Decodes the UTF-8 sequence starting with lead byte {@code b} at {@code pos}, with Go's {@code utf8.DecodeRune}
     * rules: an invalid or truncated sequence, an overlong form, a surrogate or a code point past U+10FFFF is U+FFFD
     * for its first byte, and decoding resumes at the next byte.
     */
    private void utf8(StringBuilder text, int b) {
        int need;
        int min = 0x80;
        int max = 0xBF;
        int cp;
        if (b >= 0xC2 && b <= 0xDF) {
            need = 1;
            cp = b & 0x1F;
        } else if (b >= 0xE0 && b <= 0xEF) {
            need = 2;
            cp = b & 0x0F;
            if (b == 0xE0) {
                min = 0xA0;
            } else if (b == 0xED) {
                max = 0x9F;
            }
        } else if (b >= 0xF0 && b <= 0xF4) {
            need = 3;
            cp = b & 0x07;
            if (b == 0xF0) {
                min = 0x90;
            } else if (b == 0xF4) {
                max = 0x8F;
            }
        } else {
            text.append('\uFFFD');
            pos++;
            return;
        }
        for (int i = 1; i <= need; i++) {
            int c = pos + i < end ? in[pos + i] & 0xFF : -1;
            int lo = i == 1 ? min : 0x80;
            int hi = i == 1 ? max : 0xBF;
            if (c < lo || c > hi) {
                text.append('\uFFFD');
                pos++;
                return;
            }
            cp = cp << 6 | (c & 0x3F);
        }
        text.appendCodePoint(cp);
        pos += need + 1;
    }

    // ------------------------------------------------------------------------------------------------ limits

    private void checkDepth(int depth) throws CniException {
        if (depth >= JsonCodec.MAX_DEPTH) {
            throw limit(depth, "JSON nested deeper than " + JsonCodec.MAX_DEPTH + " levels");
        }
    }

    /** {@code value} if within the string limit; {@code depth} locates the value (or, for a key, its object). */
    private String checkLength(String value, int depth) throws CniException {
        if (value.length() > JsonCodec.MAX_STRING_CHARS) {
            throw limit(depth, "string too long (" + value.length() + " chars, limit " + JsonCodec.MAX_STRING_CHARS
                    + ")");
        }
        return value;
    }

    private CniException limit(int depth, String problem) {
        return new CniException(CniError.DECODING_FAILURE, JsonCodec.where(path(depth)) + ": " + problem);
    }

    /** The path of the value at {@code depth} on the current branch: {@code ipam.ranges[0][1]}. */
    private String path(int depth) {
        StringBuilder path = new StringBuilder();
        for (int d = 1; d <= depth; d++) {
            if (pathKeys[d] != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(pathKeys[d]);
            } else {
                path.append('[').append(pathIndexes[d]).append(']');
            }
        }
        return path.toString();
    }

    // ------------------------------------------------------------------------------------------------ errors

    private void skipWhitespace() {
        while (pos < end) {
            byte b = in[pos];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return;
            }
            pos++;
        }
    }

    /** "unexpected end of input" or "unexpected character 'x'", for the byte at {@code pos}. */
    private String found() {
        return pos == end ? "unexpected end of input" : "unexpected " + describe(pos);
    }

    /** Why a character that starts a value in JavaScript or JSON5 does not in JSON. */
    private String hint() {
        if (pos == end) {
            return "";
        }
        return switch (in[pos]) {
            case '/' -> " (JSON has no comments)";
            case '\'' -> " (JSON strings take double quotes)";
            default -> "";
        };
    }

    private String describe(int at) {
        int b = in[at] & 0xFF;
        if (b >= 0x20 && b < 0x7F) {
            return "character '" + (char) b + "'";
        }
        if (b < 0x80) {
            return "character " + codePoint(b);
        }
        return "byte 0x" + Integer.toHexString(b).toUpperCase(java.util.Locale.ROOT) + " (JSON syntax is ASCII)";
    }

    private static String codePoint(int c) {
        String hex = Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT);
        return "U+" + "0000".substring(hex.length()) + hex;
    }

    /** A syntax error at byte offset {@code at}, located by line and column (in characters, from 1). */
    private CniException syntax(int at, String problem) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < at; i++) {
            if (in[i] == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        int column = 1;
        for (int i = lineStart; i < at; i++) {
            if ((in[i] & 0xC0) != 0x80) { // count characters, not UTF-8 continuation bytes
                column++;
            }
        }
        return new CniException(CniError.DECODING_FAILURE,
                "invalid JSON at line " + line + ", column " + column + ": " + problem);
    }
}
