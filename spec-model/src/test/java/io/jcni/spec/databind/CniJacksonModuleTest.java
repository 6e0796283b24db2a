package io.jcni.spec.databind;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CniJacksonModuleTest {

    private final ObjectMapper mapper = new ObjectMapper().registerModule(new CniJacksonModule());

    private static final String CONFLIST = """
            {"cniVersion":"1.0.0","name":"dbnet","plugins":[{"type":\
            "bridge","zeta":1.50,"alpha":[1e3]},{"type":"portmap","capabilities":{"portMappings":true}}]}""";

    private static final String RESULT = """
            {"cniVersion":"0.4.0","interfaces":[{"name":"eth0","sandbox":\
            "/run/netns/a"}],"ips":[{"version":"4","interface":0,"address":"10.0.0.2/24","gateway":\
            "10.0.0.1"}],"routes":[{"dst":"0.0.0.0/0"}],"dns":{}}""";

    @Test
    void objectMapperOutputIsIdenticalToTheStreamingCodec() throws Exception {
        NetworkConfigList list = CniJson.decodeNetworkConfigList(CONFLIST.getBytes(UTF_8));
        assertThat(mapper.writeValueAsString(list)).isEqualTo(new String(CniJson.encode(list), UTF_8))
                .isEqualTo(CONFLIST);
        CniResult result = CniJson.decodeResult(RESULT.getBytes(UTF_8), CniVersion.V0_4_0);
        assertThat(mapper.writeValueAsString(result)).isEqualTo(RESULT);
        assertThat(mapper.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(result))
                .contains("\"address\" : \"10.0.0.2/24\"");
        CniError error = new CniError("1.0.0", 7, "bad", "worse");
        assertThat(mapper.writeValueAsString(error))
                .isEqualTo("{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"bad\",\"details\":\"worse\"}");
        assertThat(mapper.writeValueAsString(VersionInfo.of(CniVersion.V1_0_0, List.of(CniVersion.V1_0_0))))
                .isEqualTo("{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"1.0.0\"]}");
    }

    @Test
    void objectMapperReadsTheSameModel() throws Exception {
        NetworkConfigList list = mapper.readValue(CONFLIST, NetworkConfigList.class);
        assertThat(list.plugins()).extracting(PluginConfig::type).containsExactly("bridge", "portmap");
        assertThat(list.plugins().get(0).get("zeta")).contains(new io.jcni.spec.JsonNumber("1.50"));
        CniResult result = mapper.readValue(RESULT, CniResult.class);
        assertThat(result).isEqualTo(CniJson.decodeResult(RESULT.getBytes(UTF_8), CniVersion.V0_4_0));
        assertThat(mapper.readValue(RESULT, Result.class)).isEqualTo(result);
        assertThat(mapper.readValue("{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.0.0.2/24\"}}", LegacyResult.class)
                .ip4().ip()).hasToString("10.0.0.2/24");
        assertThat(mapper.readValue("{\"code\":11,\"msg\":\"busy\"}", CniError.class)).isEqualTo(new CniError(11,
                "busy"));
        assertThat(mapper.readValue("\"1.1.0\"", CniVersion.class)).isEqualTo(CniVersion.V1_1_0);
        assertThat(mapper.readValue("\"::ffff:10.0.0.1/120\"", IpPrefix.class)).hasToString("10.0.0.1/24");
        assertThat(mapper.readValue("[1.50,{\"b\":null}]", Json.class).toString()).isEqualTo("[1.50,{\"b\":null}]");
        assertThat(mapper.readValue("{\"b\":1,\"a\":2}", JsonObject.class).keys()).containsExactly("b", "a");
    }

    @Test
    void nestedInsideOrdinaryBeansAndMaps() throws Exception {
        Map<String, Object> cache = Map.of("kind", "cniCacheV1",
                "result", CniJson.decodeResult(RESULT.getBytes(UTF_8), CniVersion.V0_4_0));
        String json = mapper.writeValueAsString(cache);
        assertThat(mapper.readTree(json).get("result").get("ips").get(0).get("address").asText())
                .isEqualTo("10.0.0.2/24");
        record Holder(PluginConfig config, CniVersion version) {
        }
        Holder holder = mapper.readValue("{\"config\":{\"type\":\"bridge\"},\"version\":\"0.4.0\"}", Holder.class);
        assertThat(holder.config().type()).isEqualTo("bridge");
        assertThat(holder.version()).isEqualTo(CniVersion.V0_4_0);
    }

    @Test
    void codecErrorsSurfaceAsMappingExceptionsCarryingTheCniException() {
        JsonMappingException e = catchThrowableOfType(JsonMappingException.class,
                () -> mapper.readValue("{\"name\":\"n\",\"plugins\":[{\"type\":\"../x\"}]}", NetworkConfigList.class));
        assertThat(e.getCause()).isInstanceOf(CniException.class);
        assertThat(((CniException) e.getCause()).code()).isEqualTo(7);
        assertThat(e.getOriginalMessage()).isEqualTo("""
                plugins[0].type: invalid plugin type "../x": must be a file \
                name without path separators""");
        JsonMappingException wrongShape = catchThrowableOfType(JsonMappingException.class,
                () -> mapper.readValue(RESULT, LegacyResult.class));
        assertThat(((CniException) wrongShape.getCause()).code()).isEqualTo(1);
    }
}
