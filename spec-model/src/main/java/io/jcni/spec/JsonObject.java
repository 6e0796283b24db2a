package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A JSON object that keeps its key order. Immutable: {@link #with} and {@link #without} return copies, replacing a
 * value in place (same position) and appending new keys at the end.
 *
 * <p>A document with a repeated key keeps the last value, at the position of its last occurrence: what a Go map holds
 * after decoding it, and where the value is in the order that decides between keys that differ only in case
 * ({@link #field}).
 *
 * <p>Two lookups: {@link #get} matches a key exactly, as Go's encoding/json does for a map (tuning's {@code sysctl},
 * {@code capabilities}, libcni's conflist top level); {@link #field} finds what Go decodes into a struct field, which
 * matches keys case-insensitively (every Go plugin's configuration and {@code runtimeConfig}, results, libcni's
 * cache).
 */
public final class JsonObject implements Json {
    public static final JsonObject EMPTY = new JsonObject(new LinkedHashMap<>());

    private final Map<String, Json> members;

    private JsonObject(LinkedHashMap<String, Json> members) {
        this.members = Collections.unmodifiableMap(members);
    }

    /** An object with the entries of {@code members} in its iteration order. */
    public static JsonObject of(Map<String, ? extends Json> members) {
        LinkedHashMap<String, Json> copy = new LinkedHashMap<>();
        for (Map.Entry<String, ? extends Json> member : members.entrySet()) {
            copy.put(Objects.requireNonNull(member.getKey(), "key"),
                    Objects.requireNonNull(member.getValue(), "value of " + member.getKey()));
        }
        return new JsonObject(copy);
    }

    /**
     * An object of alternating keys and values: {@code of("type", "bridge", "mtu", 1500, "ipam", ipamObject)}. Keys are
     * strings; a value is a {@link Json}, or a {@link String}, {@link Boolean}, {@link Integer} or {@link Long}, which
     * become the JSON string, boolean or number.
     *
     * @throws IllegalArgumentException for an odd count, a key that is not a string, or a value of another type (a
     *                                  {@code double}: write {@code new JsonNumber("1.5")}, which keeps the literal)
     * @throws NullPointerException     for a null key or value ({@link Json#NULL} is JSON's null)
     */
    public static JsonObject of(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must pair up");
        }
        LinkedHashMap<String, Json> members = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            Object key = Objects.requireNonNull(keysAndValues[i], "key");
            if (!(key instanceof String name)) {
                throw new IllegalArgumentException("key " + (i / 2) + " is not a string: " + key.getClass().getName());
            }
            members.put(name, value(name, Objects.requireNonNull(keysAndValues[i + 1], "value of " + name)));
        }
        return new JsonObject(members);
    }

    private static Json value(String key, Object value) {
        if (value instanceof Json json) {
            return json;
        }
        if (value instanceof String string) {
            return new JsonString(string);
        }
        if (value instanceof Boolean bool) {
            return JsonBoolean.of(bool);
        }
        if (value instanceof Integer || value instanceof Long) {
            return JsonNumber.of(((Number) value).longValue());
        }
        throw new IllegalArgumentException("value of " + key + " is not a JSON value: " + value.getClass().getName()
                + " (use Json.of, or new JsonNumber(literal) for other numbers)");
    }

    /** The members in document order (unmodifiable). */
    public Map<String, Json> members() {
        return members;
    }

    public Set<String> keys() {
        return members.keySet();
    }

    public int size() {
        return members.size();
    }

    public boolean isEmpty() {
        return members.isEmpty();
    }

    public boolean has(String key) {
        return members.containsKey(key);
    }

    /** The member {@code key}, matched exactly (a Go map's lookup). */
    public Optional<Json> get(String key) {
        return Optional.ofNullable(members.get(key));
    }

    /**
     * What Go's encoding/json decodes from this object into a struct field whose JSON name is {@code name}: the
     * members whose key is {@code name} or equal to it ignoring case, the last non-null one winning, objects among
     * them merged (see {@code GoFieldMatch}); empty when there is none, or every one is {@code null}.
     */
    public Optional<Json> field(String name) {
        return Optional.ofNullable(GoFieldMatch.field(this, name));
    }

    /** Whether {@link #field} finds a value for {@code name}. */
    public boolean hasField(String name) {
        return field(name).isPresent();
    }

    /** This object with {@code key} set to {@code value}: replaced in place if present, appended otherwise. */
    public JsonObject with(String key, Json value) {
        LinkedHashMap<String, Json> copy = new LinkedHashMap<>(members);
        copy.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return new JsonObject(copy);
    }

    /** This object without {@code key} (the same object if it has no such key). */
    public JsonObject without(String key) {
        if (!members.containsKey(key)) {
            return this;
        }
        LinkedHashMap<String, Json> copy = new LinkedHashMap<>(members);
        copy.remove(key);
        return new JsonObject(copy);
    }

    /**
     * This object without any member that {@link #field} would read for {@code name} (every spelling of the key, null
     * ones included); the same object if there is none.
     */
    public JsonObject withoutField(String name) {
        LinkedHashMap<String, Json> copy = new LinkedHashMap<>();
        for (Map.Entry<String, Json> member : members.entrySet()) {
            if (!GoFieldMatch.matches(member.getKey(), name)) {
                copy.put(member.getKey(), member.getValue());
            }
        }
        return copy.size() == members.size() ? this : new JsonObject(copy);
    }

    @Override
    public String typeName() {
        return "object";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonObject object && object.members.equals(members);
    }

    @Override
    public int hashCode() {
        return members.hashCode();
    }

    @Override
    public String toString() {
        return JsonCodec.toJson(this);
    }
}
