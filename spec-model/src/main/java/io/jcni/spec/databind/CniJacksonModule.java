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
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Command;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonBoolean;
import io.jcni.spec.JsonNull;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import io.jcni.spec.LegacyIpConfig;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import io.jcni.spec.VersionInfo;
import io.jcni.spec.internal.MessageCodec;
import io.jcni.spec.internal.ResultCodec;
import java.io.IOException;
import java.util.Optional;

/**
 * Jackson databind support for runtimes that already use an {@code ObjectMapper}: {@code
 * mapper.registerModule(new CniJacksonModule())}. Every serializer and deserializer delegates to the streaming codec
 * ({@link CniJson}), so the JSON is the CNI wire JSON, the same bytes {@code CniJson} writes (with the mapper's own
 * indentation, if it has one), and the same checks apply: a {@link CniException} surfaces as a
 * {@link JsonMappingException} whose cause it is. Values nest: a record or bean with a {@link Result}, a
 * {@code List<Route>} or a {@code Map<String, IpConfig>} reads and writes each member as below.
 *
 * <p>Every value type of {@code io.jcni.spec}, as it appears on the wire:
 * <ul>
 * <li>{@link PluginConfig}, {@link NetworkConfigList}: the configuration object, key order and unknown keys kept;</li>
 * <li>{@link CniResult}, {@link Result}, {@link LegacyResult}: the result of its {@code cniVersion} (absent meaning
 * 0.1.0, as in libcni), read as leniently as a runtime reads a plugin's output;</li>
 * <li>the parts of a result as the newest version writes them: {@link Interface} ({@code interfaces[]} member),
 * {@link IpConfig} ({@code ips[]} member, no {@code version}: a {@code version} read is ignored), {@link Route}
 * ({@code routes[]} member, 1.1.0 attributes included), {@link Dns}, {@link LegacyIpConfig} (the {@code ip4}/
 * {@code ip6} object of 0.1.0/0.2.0);</li>
 * <li>{@link CniError}, {@link VersionInfo}: the error and VERSION documents; {@link GcAttachment}: a
 * {@code cni.dev/valid-attachments} member ({@code containerID}, {@code ifname});</li>
 * <li>strings: {@link CniVersion}, {@link IpPrefix} (CIDR), {@link CniArgs} (the {@code CNI_ARGS} text,
 * {@code K=V;K2=V2}), {@link Command} (the {@code CNI_COMMAND} value);</li>
 * <li>{@link Json} and each of its types as the JSON value itself; JSON {@code null} reads as {@link Json#NULL} where a
 * {@code Json} or {@code JsonNull} is expected.</li>
 * </ul>
 * Not values, so not mapped: {@link ConfigNode} (a position inside a document), {@link CniException}, and the static
 * helpers {@code CniJson}, {@code CniNames}, {@code IpText}.
 *
 * <p>Not for the plugin exec path: loading databind costs about 100 ms of start-up (see docs/ARCHITECTURE.md, "The
 * start-up budget"). Needs jackson-databind at run time, which jcni does not bring: the runtime that registers this
 * module depends on it (module path: {@code requires com.fasterxml.jackson.databind}).
 */
public final class CniJacksonModule extends SimpleModule {
    private static final long serialVersionUID = 1L;

    public CniJacksonModule() {
        super("jcni-spec", Version.unknownVersion());
        // The JSON value model: written as it is; each subtype read with a type check.
        addSerializer(Json.class, new Writer<>(value -> value));
        addDeserializer(Json.class, new Reader<>(json -> json, Json.NULL));
        addDeserializer(JsonObject.class, new Reader<>(json -> object(json, "JSON value"), null));
        addDeserializer(JsonArray.class, new Reader<>(json -> typed(json, JsonArray.class, "array"), null));
        addDeserializer(JsonString.class, new Reader<>(json -> typed(json, JsonString.class, "string"), null));
        addDeserializer(JsonNumber.class, new Reader<>(json -> typed(json, JsonNumber.class, "number"), null));
        addDeserializer(JsonBoolean.class, new Reader<>(json -> typed(json, JsonBoolean.class, "boolean"), null));
        addDeserializer(JsonNull.class, new Reader<>(json -> typed(json, JsonNull.class, "null"), Json.NULL));

        // Documents.
        addSerializer(PluginConfig.class, new Writer<>(PluginConfig::json));
        addDeserializer(PluginConfig.class, new Reader<>(json -> PluginConfig.of(object(json,
                "plugin configuration")), null));
        addSerializer(NetworkConfigList.class, new Writer<>(NetworkConfigList::json));
        addDeserializer(NetworkConfigList.class, new Reader<>(json -> NetworkConfigList.of(object(json,
                "network configuration list")), null));
        addSerializer(CniResult.class, new Writer<>(CniJson::toJson));
        addDeserializer(CniResult.class, new Reader<>(json -> CniJson.decodeResult(object(json, "result"), null),
                null));
        addDeserializer(Result.class, new Reader<>(json -> {
            CniResult result = CniJson.decodeResult(object(json, "result"), null);
            if (result instanceof Result modern) {
                return modern;
            }
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    "result: version " + result.cniVersion() + " is not a 0.3.0+ result");
        }, null));
        addDeserializer(LegacyResult.class, new Reader<>(json -> {
            CniResult result = CniJson.decodeResult(object(json, "result"), null);
            if (result instanceof LegacyResult legacy) {
                return legacy;
            }
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    "result: version " + result.cniVersion() + " is not a 0.1.0/0.2.0 result");
        }, null));
        addSerializer(CniError.class, new Writer<>(CniJson::toJson));
        addDeserializer(CniError.class, new Reader<>(json -> MessageCodec.decodeError(object(json, "error")), null));
        addSerializer(VersionInfo.class, new Writer<>(MessageCodec::toJson));
        addDeserializer(VersionInfo.class, new Reader<>(json -> MessageCodec.decodeVersionInfo(object(json,
                "version info")), null));

        // The parts of results and requests.
        addSerializer(Interface.class, new Writer<Interface>(value -> ResultCodec.iface(value, true)));
        addDeserializer(Interface.class, new Reader<>(json -> ResultCodec.decodeInterface(node(json), true), null));
        addSerializer(IpConfig.class, new Writer<IpConfig>(value -> ResultCodec.ip(value, false)));
        addDeserializer(IpConfig.class, new Reader<>(json -> ResultCodec.decodeIp(node(json), false, null), null));
        addSerializer(Route.class, new Writer<Route>(value -> ResultCodec.route(value, true)));
        addDeserializer(Route.class, new Reader<>(json -> ResultCodec.route(node(json), true), null));
        addSerializer(Dns.class, new Writer<>(ResultCodec::dns));
        addDeserializer(Dns.class, new Reader<>(json -> {
            ConfigNode node = node(json);
            node.asObject();
            return ResultCodec.decodeDns(Optional.of(node));
        }, null));
        addSerializer(LegacyIpConfig.class, new Writer<>(ResultCodec::legacyIp));
        addDeserializer(LegacyIpConfig.class, new Reader<>(json -> ResultCodec.decodeLegacyIp(node(json)), null));
        addSerializer(GcAttachment.class, new Writer<GcAttachment>(value -> JsonObject.of("containerID",
                value.containerId(), "ifname", value.ifName())));
        addDeserializer(GcAttachment.class, new Reader<>(json -> {
            ConfigNode node = node(json);
            node.asObject();
            return new GcAttachment(node.string("containerID").orElse(""), node.string("ifname").orElse(""));
        }, null));

        // Strings.
        addSerializer(CniVersion.class, new Writer<CniVersion>(version -> Json.of(version.toString())));
        addDeserializer(CniVersion.class, new Reader<>(json -> CniVersion.parse(string(json, "cniVersion")), null));
        addSerializer(IpPrefix.class, new Writer<IpPrefix>(prefix -> Json.of(prefix.toString())));
        addDeserializer(IpPrefix.class, new Reader<>(json -> IpPrefix.parse(string(json, "CIDR"), "CIDR",
                CniError.DECODING_FAILURE), null));
        addSerializer(CniArgs.class, new Writer<CniArgs>(args -> Json.of(args.toString())));
        addDeserializer(CniArgs.class, new Reader<>(json -> CniArgs.parse(string(json, "CNI_ARGS")), null));
        addSerializer(Command.class, new Writer<Command>(command -> Json.of(command.name())));
        addDeserializer(Command.class, new Reader<>(json -> {
            String text = string(json, "CNI_COMMAND");
            Command command = Command.parse(text);
            if (command == null) {
                throw new CniException(CniError.DECODING_FAILURE, "CNI_COMMAND: unknown command \"" + text + "\"");
            }
            return command;
        }, null));
    }

    /** A decoding position for a part: invalid values are code 6, as in a result. */
    private static ConfigNode node(Json json) {
        return ConfigNode.root(json, CniError.DECODING_FAILURE);
    }

    private static JsonObject object(Json json, String what) throws CniException {
        if (json instanceof JsonObject object) {
            return object;
        }
        throw new CniException(CniError.DECODING_FAILURE, what + ": expected object, got " + json.typeName());
    }

    private static <T extends Json> T typed(Json json, Class<T> type, String name) throws CniException {
        if (type.isInstance(json)) {
            return type.cast(json);
        }
        throw new CniException(CniError.DECODING_FAILURE, "JSON value: expected " + name + ", got " + json.typeName());
    }

    private static String string(Json json, String what) throws CniException {
        if (json instanceof JsonString string) {
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
        private final T nullValue;

        /** @param nullValue what JSON {@code null} reads as ({@link Json#NULL} for the value model, else null) */
        Reader(FromJson<T> fromJson, T nullValue) {
            this.fromJson = fromJson;
            this.nullValue = nullValue;
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
            return nullValue;
        }
    }
}
