package io.jcni.spec.databind;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import io.jcni.spec.VersionInfo;
import io.jcni.spec.internal.MessageCodec;
import java.io.IOException;

/**
 * Jackson databind support for runtimes that already use an {@code ObjectMapper}: {@code
 * mapper.registerModule(new CniJacksonModule())}. Every serializer and deserializer delegates to the streaming codec
 * ({@link CniJson}), so the JSON is the same (with the mapper's own indentation, if it has one) and the same checks
 * apply: a {@link CniException} surfaces as a {@link JsonMappingException} whose cause it is.
 *
 * <p>Types: {@link Json} and its subtypes, {@link PluginConfig}, {@link NetworkConfigList}, {@link CniResult}
 * ({@link Result}, {@link LegacyResult}; the version comes from the document's {@code cniVersion}, absent meaning
 * 0.1.0 as in libcni), {@link CniError}, {@link VersionInfo}, and {@link CniVersion} and {@link IpPrefix} as strings.
 *
 * <p>Not for the plugin exec path: loading databind costs about 100 ms of start-up (see docs/ARCHITECTURE.md, "The
 * start-up budget").
 */
public final class CniJacksonModule extends SimpleModule {
    private static final long serialVersionUID = 1L;

    public CniJacksonModule() {
        super("jcni-spec", Version.unknownVersion());
        addSerializer(Json.class, new Writer<>(value -> value));
        addSerializer(PluginConfig.class, new Writer<>(PluginConfig::json));
        addSerializer(NetworkConfigList.class, new Writer<>(NetworkConfigList::json));
        addSerializer(CniResult.class, new Writer<>(CniJson::toJson));
        addSerializer(CniError.class, new Writer<>(CniJson::toJson));
        addSerializer(VersionInfo.class, new Writer<>(MessageCodec::toJson));
        addSerializer(CniVersion.class, new Writer<CniVersion>(version -> Json.of(version.toString())));
        addSerializer(IpPrefix.class, new Writer<IpPrefix>(prefix -> Json.of(prefix.toString())));

        addDeserializer(Json.class, new Reader<>(json -> json));
        addDeserializer(JsonObject.class, new Reader<>(json -> object(json, "JSON value")));
        addDeserializer(PluginConfig.class, new Reader<>(json -> PluginConfig.of(object(json,
                "plugin configuration"))));
        addDeserializer(NetworkConfigList.class, new Reader<>(json -> NetworkConfigList.of(object(json,
                "network configuration list"))));
        Reader<CniResult> results = new Reader<>(json -> CniJson.decodeResult(object(json, "result"), null));
        addDeserializer(CniResult.class, results);
        addDeserializer(Result.class, new Reader<>(json -> {
            CniResult result = CniJson.decodeResult(object(json, "result"), null);
            if (result instanceof Result modern) {
                return modern;
            }
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    "result: version " + result.cniVersion() + " is not a 0.3.0+ result");
        }));
        addDeserializer(LegacyResult.class, new Reader<>(json -> {
            CniResult result = CniJson.decodeResult(object(json, "result"), null);
            if (result instanceof LegacyResult legacy) {
                return legacy;
            }
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    "result: version " + result.cniVersion() + " is not a 0.1.0/0.2.0 result");
        }));
        addDeserializer(CniError.class, new Reader<>(json -> MessageCodec.decodeError(object(json, "error"))));
        addDeserializer(VersionInfo.class, new Reader<>(json -> MessageCodec.decodeVersionInfo(object(json,
                "version info"))));
        addDeserializer(CniVersion.class, new Reader<>(json -> CniVersion.parse(string(json, "cniVersion"))));
        addDeserializer(IpPrefix.class, new Reader<>(json -> IpPrefix.parse(string(json, "CIDR"), "CIDR",
                CniError.DECODING_FAILURE)));
    }

    private static JsonObject object(Json json, String what) throws CniException {
        if (json instanceof JsonObject object) {
            return object;
        }
        throw new CniException(CniError.DECODING_FAILURE, what + ": expected object, got " + json.typeName());
    }

    private static String string(Json json, String what) throws CniException {
        if (json instanceof io.jcni.spec.JsonString string) {
            return string.value();
        }
        throw new CniException(CniError.DECODING_FAILURE, what + ": expected string, got " + json.typeName());
    }

    @FunctionalInterface
    private interface ToJson<T> {
        Json apply(T value);
    }

    @FunctionalInterface
    private interface FromJson<T> {
        T apply(Json json) throws CniException;
    }

    private static final class Writer<T> extends JsonSerializer<T> {
        private final ToJson<T> toJson;

        Writer(ToJson<T> toJson) {
            this.toJson = toJson;
        }

        @Override
        public void serialize(T value, JsonGenerator g, SerializerProvider provider) throws IOException {
            JacksonStreams.write(g, toJson.apply(value));
        }
    }

    private static final class Reader<T> extends JsonDeserializer<T> {
        private final FromJson<T> fromJson;

        Reader(FromJson<T> fromJson) {
            this.fromJson = fromJson;
        }

        @Override
        public T deserialize(JsonParser p, DeserializationContext context) throws IOException {
            try {
                return fromJson.apply(JacksonStreams.read(p));
            } catch (CniException e) {
                throw JsonMappingException.from(p, e.getMessage(), e);
            }
        }

        @Override
        public T getNullValue(DeserializationContext context) {
            return null;
        }
    }
}
