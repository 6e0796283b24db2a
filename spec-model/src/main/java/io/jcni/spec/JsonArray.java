package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import java.util.List;

/** A JSON array; the element list is immutable. */
public record JsonArray(List<Json> elements) implements Json {
    public static final JsonArray EMPTY = new JsonArray(List.of());

    public JsonArray {
        elements = List.copyOf(elements);
    }

    public int size() {
        return elements.size();
    }

    public Json get(int index) {
        return elements.get(index);
    }

    @Override
    public String typeName() {
        return "array";
    }

    @Override
    public String toString() {
        return JsonCodec.toJson(this);
    }
}
