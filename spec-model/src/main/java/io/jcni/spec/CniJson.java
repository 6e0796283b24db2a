package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import io.jcni.spec.internal.MessageCodec;
import io.jcni.spec.internal.ResultCodec;
import java.util.Optional;

/**
 * The codec: decodes every CNI document from UTF-8 bytes and encodes it back in the shape libcni prints. Its own
 * strict reader and writer, no JSON library and no reflection, so it is cheap at plugin start-up (see the package
 * documentation for why it left jackson-core).
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
        Optional<Json> version = object.field("cniVersion");
        if (version.isEmpty()) {
            return CniVersion.V0_1_0;
        }
        return CniVersion.parse(ConfigNode.root(object).requireString("cniVersion"), "cniVersion");
    }

    /**
     * A result printed by a plugin run with a configuration of version {@code expected}: a missing
     * {@code cniVersion} means {@code expected}; a declared one must be of the same result type (0.1.0/0.2.0,
     * 0.3.0-0.4.0 or 1.0.0/1.1.0, as libcni's result creators group them) and is kept. Code 1 for version
     * mismatches, 6 for anything else wrong.
     */
    public static CniResult decodeResult(byte[] json, CniVersion expected) throws CniException {
        return ResultCodec.decode(parseObject(json, "result"), expected, "");
    }

    /**
     * As {@link #decodeResult(byte[], CniVersion)} ({@code expected} may be null: the version is then the document's),
     * adding to {@code warnings} one line for each value accepted only because Go libcni 1.1.2 accepts it: an
     * {@code ips[].interface} that is not an index of {@code interfaces} (kept as it is) and a 0.3.x/0.4.0
     * {@code ips[].version} that contradicts its address (read as the address's family, which is what jcni prints).
     * A runtime reports them and passes the result on, as Go runtimes do.
     */
    public static CniResult decodeResult(byte[] json, CniVersion expected, java.util.List<String> warnings)
            throws CniException {
        return ResultCodec.decode(parseObject(json, "result"), expected, "", warnings);
    }

    /** As {@link #decodeResult(byte[], CniVersion, java.util.List)}, for a result held as JSON. */
    public static CniResult decodeResult(JsonObject json, CniVersion expected, java.util.List<String> warnings)
            throws CniException {
        return ResultCodec.decode(json, expected, "", warnings);
    }

    /** A result whose version is taken from its own {@code cniVersion} (absent means 0.1.0, as in libcni). */
    public static CniResult decodeResult(byte[] json) throws CniException {
        return ResultCodec.decode(parseObject(json, "result"), null, "");
    }

    /**
     * A result held as JSON (e.g. inside a cache file), as {@link #decodeResult(byte[], CniVersion)}; a null
     * {@code expected} takes the version from the document, as {@link #decodeResult(byte[])}.
     */
    public static CniResult decodeResult(JsonObject json, CniVersion expected) throws CniException {
        return ResultCodec.decode(json, expected, "");
    }

    /** A result as libcni prints it for its version (field names, order and omitted empty fields). */
    public static JsonObject toJson(CniResult result) {
        return ResultCodec.toJson(result);
    }

    /** A result as a plugin prints it: indented by four spaces, as libcni's {@code Result.Print}. */
    public static byte[] encode(CniResult result) {
        return encodeIndented(ResultCodec.toJson(result));
    }

    /** An error result; a non-integer or negative {@code code} is code 6. */
    public static CniError decodeError(byte[] json) throws CniException {
        return MessageCodec.decodeError(parseObject(json, "error"));
    }

    public static JsonObject toJson(CniError error) {
        return MessageCodec.toJson(error);
    }

    /** An error as a plugin prints it: indented, as libcni's {@code Error.Print}. */
    public static byte[] encode(CniError error) {
        return encodeIndented(MessageCodec.toJson(error));
    }

    /** A plugin's VERSION answer, with libcni's rules (see {@link MessageCodec#decodeVersionInfo}). */
    public static VersionInfo decodeVersionInfo(byte[] json) throws CniException {
        try {
            return MessageCodec.decodeVersionInfo(parseObject(json, "version info"));
        } catch (CniException e) {
            if (e.getMessage().startsWith("decoding version info")) {
                throw e;
            }
            throw new CniException(e.code(), "decoding version info: " + e.error().msg(), e.error().details());
        }
    }

    public static JsonObject toJson(VersionInfo info) {
        return MessageCodec.toJson(info);
    }

    /** A VERSION answer as a plugin prints it: compact with a trailing newline, as libcni's {@code json.Encoder}. */
    public static byte[] encode(VersionInfo info) {
        byte[] body = encode(MessageCodec.toJson(info));
        byte[] line = java.util.Arrays.copyOf(body, body.length + 1);
        line[body.length] = '\n';
        return line;
    }

    /** Compact JSON. */
    public static byte[] encode(Json json) {
        return JsonCodec.bytes(false, json);
    }

    /** JSON indented as Go's {@code MarshalIndent(v, "", "    ")}. */
    public static byte[] encodeIndented(Json json) {
        return JsonCodec.bytes(true, json);
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
