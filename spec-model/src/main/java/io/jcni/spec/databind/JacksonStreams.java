package io.jcni.spec.databind;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
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
import io.jcni.spec.internal.JsonCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The value model read from and written to a mapper's jackson-core streams, for {@link CniJacksonModule}: the one place
 * jcni still uses jackson-core (the plugin exec path does not; see {@code io.jcni.spec.internal.JsonCodec}). Reading
 * applies the codec's depth, string and number limits with the same messages; the document-size limit is the
 * mapper's. Writing goes through the mapper's generator, so its indentation settings apply.
 */
final class JacksonStreams {
    private JacksonStreams() {
    }

    /** Reads the value at the parser's current token (the next one if there is none yet). */
    static Json read(JsonParser parser) throws CniException {
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

    private static CniException syntax(JsonLocation location, String message) {
        String where = location == null || location.getLineNr() < 0 ? ""
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return new CniException(CniError.DECODING_FAILURE, "invalid JSON" + where + ": " + message);
    }

    private static Json read(JsonParser parser, JsonToken token, String path, int depth)
            throws IOException, CniException {
        switch (token) {
            case START_OBJECT -> {
                checkDepth(path, depth);
                LinkedHashMap<String, Json> members = new LinkedHashMap<>();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
                    String key = JsonCodec.sanitize(checkString(parser.currentName(), path));
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
                if (literal.length() > JsonCodec.MAX_NUMBER_CHARS) {
                    throw new CniException(CniError.DECODING_FAILURE, JsonCodec.where(path)
                            + ": number literal too long (" + literal.length() + " chars, limit "
                            + JsonCodec.MAX_NUMBER_CHARS + ")");
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
        if (depth >= JsonCodec.MAX_DEPTH) {
            throw new CniException(CniError.DECODING_FAILURE,
                    JsonCodec.where(path) + ": JSON nested deeper than " + JsonCodec.MAX_DEPTH + " levels");
        }
    }

    private static String checkString(String value, String path) throws CniException {
        if (value.length() > JsonCodec.MAX_STRING_CHARS) {
            throw new CniException(CniError.DECODING_FAILURE, JsonCodec.where(path) + ": string too long ("
                    + value.length() + " chars, limit " + JsonCodec.MAX_STRING_CHARS + ")");
        }
        return value;
    }

    /** Writes a value through the mapper's generator; keys go through {@link JsonCodec#sanitize}. */
    static void write(JsonGenerator g, Json value) throws IOException {
        if (value instanceof JsonObject object) {
            g.writeStartObject();
            for (var member : object.members().entrySet()) {
                g.writeFieldName(JsonCodec.sanitize(member.getKey()));
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
}
