package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A JSON value at a known path inside a document, with typed accessors whose errors name that path:
 * {@code ipam.ranges[0][0].subnet: invalid CIDR "10.0.0.0/33"}. Plugins decode their own configuration with it.
 *
 * <p>Rules, as Go's encoding/json applies them to a config struct: a key names a field exactly or ignoring case
 * ({@link #field}; {@link #member} for keys Go looks up in a map); a missing field and an explicit {@code null} are
 * both "absent"; a value of the wrong JSON type is code 6 ({@link CniError#DECODING_FAILURE}); a value of the right
 * type that breaks a rule (a bad CIDR, a number out of range, a missing required field) gets the node's value-error
 * code, 7 ({@link CniError#INVALID_NETWORK_CONFIG}) for configurations.
 */
public final class ConfigNode {
    private final Json json;
    private final String path;
    private final int valueErrorCode;
    /** Values of earlier keys of the same field ({@link #field}), decoded by Go too: their types are checked. */
    private final List<Json> overridden;

    private ConfigNode(Json json, String path, int valueErrorCode) {
        this(json, path, valueErrorCode, List.of());
    }

    private ConfigNode(Json json, String path, int valueErrorCode, List<Json> overridden) {
        this.json = Objects.requireNonNull(json, "json");
        this.path = path;
        this.valueErrorCode = valueErrorCode;
        this.overridden = overridden;
    }

    /** The root of a configuration document: invalid values are code 7. */
    public static ConfigNode root(Json json) {
        return new ConfigNode(json, "", CniError.INVALID_NETWORK_CONFIG);
    }

    /** The root of a document whose invalid values carry {@code valueErrorCode} (6 for results, for instance). */
    public static ConfigNode root(Json json, int valueErrorCode) {
        return new ConfigNode(json, "", valueErrorCode);
    }

    /** A node for {@code json} at {@code path}, e.g. to decode {@code ipam} with paths starting "ipam.". */
    public static ConfigNode at(Json json, String path) {
        return new ConfigNode(json, path, CniError.INVALID_NETWORK_CONFIG);
    }

    /** A node for {@code json} at {@code path} whose invalid values carry {@code valueErrorCode}. */
    public static ConfigNode at(Json json, String path, int valueErrorCode) {
        return new ConfigNode(json, path, valueErrorCode);
    }

    /** Dotted path from the root ("" for the root itself). */
    public String path() {
        return path;
    }

    public Json json() {
        return json;
    }

    public boolean isNull() {
        return json instanceof JsonNull;
    }

    /** An error about this node's value, with the node's value-error code. */
    public CniException invalid(String problem) {
        return new CniException(valueErrorCode, JsonCodec.where(path) + ": " + problem);
    }

    /** An error about this node's value, with a details text. */
    public CniException invalid(String problem, String details) {
        return new CniException(valueErrorCode, JsonCodec.where(path) + ": " + problem, details);
    }

    private CniException wrongType(String expected) {
        return wrongType(expected, json);
    }

    private CniException wrongType(String expected, Json value) {
        return new CniException(CniError.DECODING_FAILURE,
                JsonCodec.where(path) + ": expected " + expected + ", got " + value.typeName());
    }

    /**
     * Go decodes every key of a field, so a value of the wrong type under an earlier key fails the decoding even if a
     * later key's value is right: {@code {"MTU": "big", "mtu": 1400}} is refused, as Go refuses it.
     */
    private void checkOverridden(Class<? extends Json> type, String expected) throws CniException {
        for (Json earlier : overridden) {
            if (!type.isInstance(earlier)) {
                throw wrongType(expected, earlier);
            }
            if (earlier instanceof JsonNumber number && type == JsonNumber.class && !number.isIntegerLiteral()) {
                throw new CniException(CniError.DECODING_FAILURE,
                        JsonCodec.where(path) + ": expected integer, got " + number.literal());
            }
        }
    }

    private String childPath(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    // ------------------------------------------------------------------------------------------ navigation

    /**
     * The field {@code key} of this object as Go's encoding/json decodes it into a struct: the key matched exactly or
     * ignoring case, the last match winning, objects among the matches merged ({@link JsonObject#field}); empty when
     * missing or null, or when this node itself is null. The path names the key as the document spells it.
     */
    public Optional<ConfigNode> field(String key) throws CniException {
        return field(key, false);
    }

    /**
     * {@link #field}; with {@code nullResets}, a {@code null} drops what earlier keys gave, as Go sets a slice field
     * (an array, a {@code net.IP}) to nil, where it leaves a string, number, boolean or struct field alone.
     */
    private Optional<ConfigNode> field(String key, boolean nullResets) throws CniException {
        if (isNull()) {
            return Optional.empty();
        }
        JsonObject object = asObject();
        List<Json> values = GoFieldMatch.values(object, key, nullResets);
        if (values.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ConfigNode(GoFieldMatch.decode(values), childPath(GoFieldMatch.lastKey(object, key)),
                valueErrorCode, values.subList(0, values.size() - 1)));
    }

    /**
     * The member {@code key} matched exactly, as Go's encoding/json looks a key up in a map (tuning's {@code sysctl},
     * {@code capabilities}, libcni's conflist top level); empty when missing or null, or when this node is null.
     */
    public Optional<ConfigNode> member(String key) throws CniException {
        if (isNull()) {
            return Optional.empty();
        }
        Json value = asObject().members().get(key);
        if (value == null || value instanceof JsonNull) {
            return Optional.empty();
        }
        return Optional.of(new ConfigNode(value, childPath(key), valueErrorCode));
    }

    /** The member {@code key}; missing or null is an invalid value ("missing required field"). */
    public ConfigNode requireField(String key) throws CniException {
        Optional<ConfigNode> field = field(key);
        if (field.isEmpty()) {
            throw new CniException(valueErrorCode, childPath(key) + ": missing required field");
        }
        return field.get();
    }

    /** The elements of this array (none if this node is null), each with its index in the path. */
    public List<ConfigNode> elements() throws CniException {
        if (isNull()) {
            return List.of();
        }
        JsonArray array = asArray();
        List<ConfigNode> elements = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            elements.add(new ConfigNode(array.get(i), path + "[" + i + "]", valueErrorCode));
        }
        return elements;
    }

    /** The members of this object in document order (none if this node is null). */
    public List<Map.Entry<String, ConfigNode>> entries() throws CniException {
        if (isNull()) {
            return List.of();
        }
        List<Map.Entry<String, ConfigNode>> entries = new ArrayList<>();
        for (Map.Entry<String, Json> member : asObject().members().entrySet()) {
            entries.add(Map.entry(member.getKey(),
                    new ConfigNode(member.getValue(), childPath(member.getKey()), valueErrorCode)));
        }
        return entries;
    }

    // ------------------------------------------------------------------------------------------ values

    public JsonObject asObject() throws CniException {
        if (json instanceof JsonObject object) {
            checkOverridden(JsonObject.class, "object");
            return object;
        }
        throw wrongType("object");
    }

    public JsonArray asArray() throws CniException {
        if (json instanceof JsonArray array) {
            checkOverridden(JsonArray.class, "array");
            return array;
        }
        throw wrongType("array");
    }

    public String asString() throws CniException {
        if (json instanceof JsonString string) {
            checkOverridden(JsonString.class, "string");
            return string.value();
        }
        throw wrongType("string");
    }

    public boolean asBoolean() throws CniException {
        if (json instanceof JsonBoolean bool) {
            checkOverridden(JsonBoolean.class, "boolean");
            return bool.value();
        }
        throw wrongType("boolean");
    }

    /** An integer in {@code [min, max]}; a fraction or exponent is a wrong type, as for a Go int field. */
    public long asLong(long min, long max) throws CniException {
        if (!(json instanceof JsonNumber number)) {
            throw wrongType("integer");
        }
        if (!number.isIntegerLiteral()) {
            throw new CniException(CniError.DECODING_FAILURE,
                    JsonCodec.where(path) + ": expected integer, got " + number.literal());
        }
        checkOverridden(JsonNumber.class, "integer");
        var value = number.toLong();
        if (value.isEmpty() || value.getAsLong() < min || value.getAsLong() > max) {
            throw invalid(number.literal() + " out of range " + min + "-" + max);
        }
        return value.getAsLong();
    }

    public int asInt(int min, int max) throws CniException {
        return (int) asLong(min, max);
    }

    /** A CIDR with host bits kept, e.g. {@code 10.1.0.5/16}. */
    public IpPrefix asPrefix() throws CniException {
        return IpPrefix.parse(asString(), JsonCodec.where(path), valueErrorCode);
    }

    /** An IP address literal. */
    public InetAddress asIp() throws CniException {
        return IpText.parseAddress(asString(), JsonCodec.where(path), valueErrorCode);
    }

    /** An array of strings (none if null). */
    public List<String> asStringList() throws CniException {
        List<String> strings = new ArrayList<>();
        for (ConfigNode element : elements()) {
            strings.add(element.asString());
        }
        return List.copyOf(strings);
    }

    // ------------------------------------------------------------------------------------------ shortcuts

    public Optional<String> string(String key) throws CniException {
        Optional<ConfigNode> field = field(key);
        return field.isEmpty() ? Optional.empty() : Optional.of(field.get().asString());
    }

    public String requireString(String key) throws CniException {
        return requireField(key).asString();
    }

    public Optional<Boolean> bool(String key) throws CniException {
        Optional<ConfigNode> field = field(key);
        return field.isEmpty() ? Optional.empty() : Optional.of(field.get().asBoolean());
    }

    public Optional<Long> integer(String key, long min, long max) throws CniException {
        Optional<ConfigNode> field = field(key);
        return field.isEmpty() ? Optional.empty() : Optional.of(field.get().asLong(min, max));
    }

    public Optional<IpPrefix> prefix(String key) throws CniException {
        Optional<ConfigNode> field = field(key);
        return field.isEmpty() ? Optional.empty() : Optional.of(field.get().asPrefix());
    }

    /** An IP address field (a Go {@code net.IP}, a slice: a later {@code null} resets it). */
    public Optional<InetAddress> ip(String key) throws CniException {
        Optional<ConfigNode> field = field(key, true);
        return field.isEmpty() ? Optional.empty() : Optional.of(field.get().asIp());
    }

    /** An array of strings (a Go slice: a later {@code null} resets it; none when absent). */
    public List<String> stringList(String key) throws CniException {
        Optional<ConfigNode> field = field(key, true);
        return field.isEmpty() ? List.of() : field.get().asStringList();
    }

    /** The member {@code key}, which must be an object when present. */
    public Optional<ConfigNode> object(String key) throws CniException {
        Optional<ConfigNode> field = field(key);
        if (field.isPresent()) {
            field.get().asObject();
        }
        return field;
    }

    /** The elements of the array member {@code key} (none if absent). */
    public List<ConfigNode> array(String key) throws CniException {
        Optional<ConfigNode> field = field(key, true);
        return field.isEmpty() ? List.of() : field.get().elements();
    }

    @Override
    public String toString() {
        return JsonCodec.where(path) + " = " + json;
    }
}
