package io.jcni.spec.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonBoolean;
import io.jcni.spec.JsonNull;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The streaming (jackson-core only) reader and writer under every decode and encode. No databind, no reflection: this
 * runs inside every plugin exec.
 *
 * <p>Invalid UTF-8 is decoded leniently (Jackson substitutes U+FFFD), which is what Go's encoding/json does too.
 *
 * <p>Limits against absurd input, checked here with messages naming the place, with Jackson's own constraints set
 * higher as a backstop: {@link #MAX_DOCUMENT_BYTES}, {@link #MAX_DEPTH}, {@link #MAX_STRING_CHARS},
 * {@link #MAX_NUMBER_CHARS}. Field-name canonicalisation is off, so no symbol table exists for a hash-flooding input
 * to fill (Jackson answers that with an unchecked exception).
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

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            // Write a surrogate pair as one 4-byte UTF-8 sequence (as Go does), not as two escaped surrogates.
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxDocumentLength(2L * MAX_DOCUMENT_BYTES)
                    .maxNestingDepth(2 * MAX_DEPTH)
                    .maxStringLength(2 * MAX_STRING_CHARS)
                    .maxNumberLength(2 * MAX_NUMBER_CHARS)
                    .maxNameLength(2 * MAX_STRING_CHARS)
                    .build())
            .build();

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
        try (JsonParser parser = FACTORY.createParser(input)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new CniException(CniError.DECODING_FAILURE, "invalid JSON: empty input");
            }
            Json value = read(parser, first, "", 0);
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw syntax(parser.currentTokenLocation(), "unexpected content after the top-level value");
            }
            return value;
        } catch (StreamConstraintsException e) {
            throw new CniException(CniError.DECODING_FAILURE, "JSON exceeds a size limit: " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw syntax(e.getLocation(), e.getOriginalMessage());
        } catch (IOException e) {
            throw new CniException(CniError.DECODING_FAILURE, "invalid JSON: " + e.getMessage(), e);
        }
    }

    private static CniException syntax(JsonLocation location, String message) {
        String where = location == null || location.getLineNr() < 0 ? ""
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return new CniException(CniError.DECODING_FAILURE, "invalid JSON" + where + ": " + message);
    }

    /**
     * Reads the value at the parser's current token (e.g. inside an ObjectMapper), with the depth, string and number
     * limits; the document-size limit is the caller's.
     */
    public static Json readValue(JsonParser parser) throws CniException {
        try {
            JsonToken token = parser.currentToken();
            if (token == null) {
                token = parser.nextToken();
            }
            if (token == null) {
                throw new CniException(CniError.DECODING_FAILURE, "invalid JSON: empty input");
            }
            return read(parser, token, "", 0);
        } catch (StreamConstraintsException e) {
            throw new CniException(CniError.DECODING_FAILURE, "JSON exceeds a size limit: " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw syntax(e.getLocation(), e.getOriginalMessage());
        } catch (IOException e) {
            throw new CniException(CniError.DECODING_FAILURE, "invalid JSON: " + e.getMessage(), e);
        }
    }

    private static Json read(JsonParser parser, JsonToken token, String path, int depth)
            throws IOException, CniException {
        switch (token) {
            case START_OBJECT -> {
                checkDepth(path, depth);
                LinkedHashMap<String, Json> members = new LinkedHashMap<>();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
                    String key = checkString(parser.currentName(), path);
                    String childPath = path.isEmpty() ? key : path + "." + key;
                    members.put(key, read(parser, parser.nextToken(), childPath, depth + 1));
                }
                return JsonObject.of(members);
            }
            case START_ARRAY -> {
                checkDepth(path, depth);
                List<Json> elements = new ArrayList<>();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
                    elements.add(read(parser, t, path + "[" + elements.size() + "]", depth + 1));
                }
                return new JsonArray(elements);
            }
            case VALUE_STRING -> {
                return new JsonString(checkString(parser.getText(), path));
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                String literal = parser.getText();
                if (literal.length() > MAX_NUMBER_CHARS) {
                    throw new CniException(CniError.DECODING_FAILURE, where(path) + ": number literal too long ("
                            + literal.length() + " chars, limit " + MAX_NUMBER_CHARS + ")");
                }
                return new JsonNumber(literal);
            }
            case VALUE_TRUE -> {
                return JsonBoolean.TRUE;
            }
            case VALUE_FALSE -> {
                return JsonBoolean.FALSE;
            }
            case VALUE_NULL -> {
                return JsonNull.INSTANCE;
            }
            default -> throw syntax(parser.currentTokenLocation(), "unexpected token " + token);
        }
    }

    private static void checkDepth(String path, int depth) throws CniException {
        if (depth >= MAX_DEPTH) {
            throw new CniException(CniError.DECODING_FAILURE,
                    where(path) + ": JSON nested deeper than " + MAX_DEPTH + " levels");
        }
    }

    private static String checkString(String value, String path) throws CniException {
        if (value.length() > MAX_STRING_CHARS) {
            throw new CniException(CniError.DECODING_FAILURE, where(path) + ": string too long (" + value.length()
                    + " chars, limit " + MAX_STRING_CHARS + ")");
        }
        return value;
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

    /** Writes a value; strings go through {@link #sanitize}. */
    public static void write(JsonGenerator g, Json value) throws IOException {
        // instanceof rather than a pattern switch: a type switch costs an invokedynamic bootstrap at start-up.
        if (value instanceof JsonObject object) {
            g.writeStartObject();
            for (var member : object.members().entrySet()) {
                g.writeFieldName(sanitize(member.getKey()));
                write(g, member.getValue());
            }
            g.writeEndObject();
        } else if (value instanceof JsonArray array) {
            g.writeStartArray();
            for (Json element : array.elements()) {
                write(g, element);
            }
            g.writeEndArray();
        } else if (value instanceof JsonString string) {
            g.writeString(string.value());
        } else if (value instanceof JsonNumber number) {
            g.writeNumber(number.literal());
        } else if (value instanceof JsonBoolean bool) {
            g.writeBoolean(bool.value());
        } else {
            g.writeNull();
        }
    }

    /** {@code value} as bytes: compact, or indented as Go's MarshalIndent with four spaces. */
    public static byte[] bytes(boolean indented, Json value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            if (indented) {
                g.setPrettyPrinter(new GoIndentPrinter());
            }
            write(g, value);
        } catch (IOException e) {
            // In-memory output cannot fail; a generator error here is a bug in a writer.
            throw new UncheckedIOException("JSON encoding failed", e);
        }
        return out.toByteArray();
    }

    /** Compact JSON text of a value (for {@code toString()}). */
    public static String toJson(Json value) {
        return new String(bytes(false, value), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Writes {@code key: value} for a string value, sanitized. */
    public static void string(JsonGenerator g, String key, String value) throws IOException {
        g.writeFieldName(key);
        g.writeString(sanitize(value));
    }
}
