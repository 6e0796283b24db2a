package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import java.util.Objects;

/**
 * A JSON string. Unpaired UTF-16 surrogates (from {@code \ud800}-style escapes) are replaced by U+FFFD, as Go's
 * encoding/json does, so every string can be written back as valid UTF-8.
 */
public record JsonString(String value) implements Json {
    public JsonString {
        value = JsonCodec.sanitize(Objects.requireNonNull(value, "value"));
    }

    @Override
    public String typeName() {
        return "string";
    }

    @Override
    public String toString() {
        return JsonCodec.toJson(this);
    }
}
