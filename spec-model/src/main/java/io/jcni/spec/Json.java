package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A JSON value that keeps what a pass-through needs: object key order, unknown fields and the literal text of
 * numbers ({@code 1.50} stays {@code 1.50}, {@code 1e3} stays {@code 1e3}). Immutable.
 *
 * <p>{@code toString()} is the compact JSON text. Equality: objects compare as maps (key order ignored), numbers by
 * their literal text.
 */
public sealed interface Json permits JsonObject, JsonArray, JsonString, JsonNumber, JsonBoolean, JsonNull {

    /** JSON {@code null}. */
    JsonNull NULL = JsonNull.INSTANCE;

    /** The JSON type name: object, array, string, number, boolean or null. */
    String typeName();

    static JsonString of(String value) {
        return new JsonString(value);
    }

    static JsonBoolean of(boolean value) {
        return JsonBoolean.of(value);
    }

    static JsonNumber of(long value) {
        return JsonNumber.of(value);
    }

    static JsonArray array(Json... elements) {
        return new JsonArray(List.of(elements));
    }

    /** Parses a JSON document (with the codec's limits); malformed input is code 6. */
    static Json parse(String json) throws CniException {
        return JsonCodec.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Parses a UTF-8 JSON document (with the codec's limits); malformed input is code 6. */
    static Json parse(byte[] json) throws CniException {
        return JsonCodec.parse(json);
    }
}
