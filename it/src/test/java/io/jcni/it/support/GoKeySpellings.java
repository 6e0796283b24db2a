package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A configuration with its keys spelled the ways Go's encoding/json still matches to struct fields: upper case,
 * lower case, capitalized as a Go field name ({@code HostPort}), mixed, and with the two non-ASCII letters Go folds
 * to ASCII ones (U+017F for {@code s}, U+212A for {@code k}). Seeded, so a failing case can be replayed from its
 * seed. The keys of objects Go decodes into maps (tuning's {@code sysctl}, {@code capabilities}) are kept: there
 * Go matches exactly.
 */
public final class GoKeySpellings {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private GoKeySpellings() {}

    /**
     * {@code config} with every object key respelled (one way per key, chosen by {@code random}), except inside the
     * objects held by a key in {@code mapKeys} (the key itself is respelled: Go finds the map field ignoring case).
     */
    public static ObjectNode respell(JsonNode config, Set<String> mapKeys, Random random) {
        return (ObjectNode) respell(config, mapKeys, random, false);
    }

    /** As {@link #respell(JsonNode, Set, Random)} for any value: an object, an array of them, or a scalar. */
    public static JsonNode respellValue(JsonNode value, Set<String> mapKeys, Random random) {
        return respell(value, mapKeys, random, false);
    }

    private static JsonNode respell(JsonNode node, Set<String> mapKeys, Random random, boolean insideMap) {
        if (node instanceof ObjectNode object) {
            ObjectNode copy = NODES.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                String key = member.getKey();
                boolean map = mapKeys.contains(key);
                copy.set(insideMap ? key : spell(key, random), respell(member.getValue(), mapKeys, random, map));
            }
            return copy;
        }
        if (node instanceof ArrayNode array) {
            ArrayNode copy = NODES.arrayNode();
            for (JsonNode element : array) {
                copy.add(respell(element, mapKeys, random, false));
            }
            return copy;
        }
        return node;
    }

    /** One spelling of {@code key} that Go matches to a field named {@code key}. */
    public static String spell(String key, Random random) {
        String spelled = switch (random.nextInt(5)) {
            case 0 -> key.toUpperCase(Locale.ROOT);
            case 1 -> key.toLowerCase(Locale.ROOT);
            case 2 -> capitalized(key);
            case 3 -> mixed(key, random);
            default -> key;
        };
        if (random.nextInt(6) == 0) {
            spelled = foldingLetters(spelled);
        }
        return spelled;
    }

    /** {@code hostPort} as a Go field name: {@code HostPort}. */
    public static String capitalized(String key) {
        return key.isEmpty() ? key : Character.toUpperCase(key.charAt(0)) + key.substring(1);
    }

    private static String mixed(String key, Random random) {
        StringBuilder s = new StringBuilder(key.length());
        for (char c : key.toCharArray()) {
            s.append(random.nextBoolean() ? Character.toUpperCase(c) : Character.toLowerCase(c));
        }
        return s.toString();
    }

    /** Every {@code s}/{@code S} as U+017F and every {@code k}/{@code K} as U+212A: Go folds both back. */
    public static String foldingLetters(String key) {
        return key.replace('s', '\u017F').replace('S', '\u017F').replace('k', '\u212A').replace('K', '\u212A');
    }
}
