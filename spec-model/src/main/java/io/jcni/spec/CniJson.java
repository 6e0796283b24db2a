package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import java.util.Optional;

/**
 * The codec: decodes every CNI document from UTF-8 bytes and encodes it back in the shape libcni prints. Built on
 * jackson-core streaming only (no databind, no reflection), so it is cheap at plugin start-up.
 *
 * <p>Every decode throws {@link CniException} and nothing else on bad input: code 6 for malformed JSON, wrong JSON
 * types and exceeded limits; 7 for rule violations in configurations; 1 for malformed or unsupported versions.
 * Limits: {@value #MAX_DOCUMENT_BYTES} bytes per document, nesting depth {@value #MAX_DEPTH},
 * {@value #MAX_STRING_CHARS} chars per string, {@value #MAX_NUMBER_CHARS} chars per number literal.
 *
 * <p>Encoding never fails for values of this model. Configurations are written compact (as libcni's
 * {@code json.Marshal} sends them to plugins); results and errors indented by four spaces (as libcni's
 * {@code MarshalIndent} prints them); version info compact with a trailing newline (as {@code json.Encoder}).
 * Strings are escaped minimally; Go additionally escapes {@code <}, {@code >} and {@code &}, which is the same JSON.
 */
public final class CniJson {
    public static final int MAX_DOCUMENT_BYTES = JsonCodec.MAX_DOCUMENT_BYTES;
    public static final int MAX_DEPTH = JsonCodec.MAX_DEPTH;
    public static final int MAX_STRING_CHARS = JsonCodec.MAX_STRING_CHARS;
    public static final int MAX_NUMBER_CHARS = JsonCodec.MAX_NUMBER_CHARS;

    private CniJson() {
    }

    /** Any JSON document into the value model. */
    public static Json parse(byte[] json) throws CniException {
        return JsonCodec.parse(json);
    }

    /** A JSON document that must be an object; {@code what} names it in the error. */
    static JsonObject parseObject(byte[] json, String what) throws CniException {
        Json value = JsonCodec.parse(json);
        if (value instanceof JsonObject object) {
            return object;
        }
        throw new CniException(CniError.DECODING_FAILURE, what + ": expected object, got " + value.typeName());
    }

    /**
     * A plugin configuration object: what a plugin reads on stdin, or a single-network {@code .conf} file (turn the
     * latter into a list with {@link NetworkConfigList#fromConf}).
     */
    public static PluginConfig decodePluginConfig(byte[] json) throws CniException {
        return PluginConfig.of(parseObject(json, "plugin configuration"));
    }

    /** A network configuration list ({@code .conflist}), keeping the bytes. */
    public static NetworkConfigList decodeNetworkConfigList(byte[] json) throws CniException {
        return NetworkConfigList.decode(json);
    }

    /**
     * Only the {@code cniVersion} of a configuration or result, as libcni's {@code DecodeVersion}: 0.1.0 when absent;
     * the rest of the document is not looked at beyond being valid JSON.
     */
    public static CniVersion peekCniVersion(byte[] json) throws CniException {
        JsonObject object = parseObject(json, "configuration");
        Optional<Json> version = object.get("cniVersion");
        if (version.isEmpty() || version.get() instanceof JsonNull) {
            return CniVersion.V0_1_0;
        }
        return CniVersion.parse(ConfigNode.root(object).requireString("cniVersion"), "cniVersion");
    }

    /** Compact JSON. */
    public static byte[] encode(Json json) {
        return JsonCodec.bytes(false, g -> JsonCodec.write(g, json));
    }

    /** JSON indented as Go's {@code MarshalIndent(v, "", "    ")}. */
    public static byte[] encodeIndented(Json json) {
        return JsonCodec.bytes(true, g -> JsonCodec.write(g, json));
    }

    /** A plugin configuration, compact, key order and unknown fields as held. */
    public static byte[] encode(PluginConfig config) {
        return encode(config.json());
    }

    /** A network configuration list, compact, as held in {@link NetworkConfigList#json()}. */
    public static byte[] encode(NetworkConfigList list) {
        return encode(list.json());
    }
}
