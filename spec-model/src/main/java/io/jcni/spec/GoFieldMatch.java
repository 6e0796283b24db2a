package io.jcni.spec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How Go's {@code encoding/json} finds the struct field a JSON object's key decodes into, which is how every Go
 * reference plugin and libcni read configurations, capability arguments, {@code prevResult} and the result cache:
 * the protocol that runs in production is what that decoder accepts. containerd's go-cni, for one, sends
 * {@code {"HostPort":8080,"ContainerPort":80,...}} (its capability types have no JSON tags), and Go's portmap takes it.
 *
 * <p>The rules, as Go 1.19 (the Go of Debian's reference plugins) applies them, checked against it in
 * {@code GoFieldMatchTest}:
 * <ul>
 * <li>A key matches a field name when it is equal, or equal under case folding: ASCII letters in either case, plus
 * the two non-ASCII letters that fold to ASCII ones, U+017F (long s) for {@code s} and U+212A (Kelvin sign) for
 * {@code k}. Everything else (digits, {@code _}, {@code .}, {@code /}, {@code -}) must be equal.</li>
 * <li>Every key of the object that matches is decoded into the field, in document order: the last one wins.</li>
 * <li>An object decoded into a field that already holds one (a struct or a map) is merged into it: its keys are
 * decoded on top of the earlier object's, so {@code {"ipam":{"type":"host-local"},"IPAM":{"subnet":"..."}}} has
 * both. An array or a scalar replaces what was there.</li>
 * <li>{@code null} leaves the field as it was (Go's rule for struct, string, number and boolean fields), except for
 * arrays and IP addresses ({@link ConfigNode#array}, {@link ConfigNode#stringList}, {@link ConfigNode#ip}: Go
 * slices, which null resets). Go's pointer and map fields are reset too; jcni treats them as the value they point to,
 * a difference only a configuration that sets a key and then nulls it under another spelling can see.</li>
 * <li>A value of the wrong type fails the decoding even when a later key overrides it: {@link ConfigNode} checks the
 * JSON type of every matching value, not only of the one that wins.</li>
 * </ul>
 * Where Go decodes into a map (tuning's {@code sysctl}, {@code capabilities}, libcni's conflist top level and its
 * capability arguments), keys stay exact: {@link JsonObject#get} and {@link ConfigNode#member}.
 *
 * <p>A key repeated exactly is resolved by the parser, as a Go map would hold it: the last value, at the position of
 * its last occurrence ({@link JsonObject}); two objects under the very same key are therefore not merged as Go merges
 * them into a struct. No encoder writes such a document.
 */
final class GoFieldMatch {
    private static final char LONG_S = '\u017F';
    private static final char KELVIN = '\u212A';

    private GoFieldMatch() {
    }

    /** Whether Go decodes the key {@code key} into a field named {@code name} (an ASCII name, as Go's tags are). */
    static boolean matches(String key, String name) {
        if (key.length() != name.length()) {
            return false; // every letter that folds to an ASCII one is one UTF-16 unit, as the ASCII letter
        }
        for (int i = 0; i < name.length(); i++) {
            char n = name.charAt(i);
            char k = key.charAt(i);
            if (k == n) {
                continue;
            }
            char lower = (char) (n | 0x20);
            if (lower < 'a' || lower > 'z') {
                return false;
            }
            if (k < 0x80 ? (k | 0x20) != lower : !(lower == 's' && k == LONG_S || lower == 'k' && k == KELVIN)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The value Go decodes into the field {@code name} of a struct from {@code object}: see the class comment; null
     * when no member matches or every matching one is null.
     */
    static Json field(JsonObject object, String name) {
        return decode(values(object, name));
    }

    /** The non-null values of the members that match {@code name}, in document order. */
    static List<Json> values(JsonObject object, String name) {
        return values(object, name, false);
    }

    /**
     * As {@link #values(JsonObject, String)}; with {@code nullResets} only those after the last matching
     * {@code null} (Go's rule for a slice, map or pointer field).
     */
    static List<Json> values(JsonObject object, String name, boolean nullResets) {
        List<Json> values = null;
        for (Map.Entry<String, Json> member : object.members().entrySet()) {
            if (!matches(member.getKey(), name)) {
                continue;
            }
            if (member.getValue() instanceof JsonNull) {
                if (nullResets && values != null) {
                    values.clear();
                }
                continue;
            }
            if (values == null) {
                values = new ArrayList<>(2);
            }
            values.add(member.getValue());
        }
        return values == null ? List.of() : values;
    }

    /** {@code values} decoded one after the other onto one field; null for none. */
    static Json decode(List<Json> values) {
        Json value = null;
        for (Json next : values) {
            value = decodeOnto(value, next);
        }
        return value;
    }

    /** The key of the last member that {@link #field} took a value from, or null. */
    static String lastKey(JsonObject object, String name) {
        String key = null;
        for (Map.Entry<String, Json> member : object.members().entrySet()) {
            if (!(member.getValue() instanceof JsonNull) && matches(member.getKey(), name)) {
                key = member.getKey();
            }
        }
        return key;
    }

    /** {@code next} decoded onto a field that holds {@code current} (null: nothing yet). */
    private static Json decodeOnto(Json current, Json next) {
        if (next instanceof JsonNull) {
            return current;
        }
        if (current instanceof JsonObject earlier && next instanceof JsonObject later) {
            return merged(earlier, later);
        }
        return next;
    }

    /**
     * {@code later}'s members after {@code earlier}'s, so that a lookup in the result sees them last: a key of both
     * (exactly the same) takes the value {@link #decodeOnto} gives, at the later position.
     */
    private static JsonObject merged(JsonObject earlier, JsonObject later) {
        LinkedHashMap<String, Json> members = new LinkedHashMap<>(earlier.members());
        for (Map.Entry<String, Json> member : later.members().entrySet()) {
            Json before = members.remove(member.getKey());
            Json after = decodeOnto(before, member.getValue());
            members.put(member.getKey(), after == null ? member.getValue() : after);
        }
        return JsonObject.of(members);
    }
}
