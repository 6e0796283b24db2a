package io.jcni.spec.databind;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Command;
import io.jcni.spec.Dns;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
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
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every public type of {@code io.jcni.spec} through an {@code ObjectMapper} with {@link CniJacksonModule}: written as
 * the CNI wire JSON (compared with the text below, which is what libcni and jcni's codec print for that part), and read
 * back equal, on its own and nested in a record, a list and a map. A public type added to the package without a case
 * here (or a reason in {@link #NOT_VALUES}) fails {@link #everyPublicTypeOfTheModelHasACase}.
 */
class EveryTypeRoundTripTest {

    private static final ObjectMapper MAPPER = new ObjectMapper().registerModule(new CniJacksonModule());

    /** Public types that are not values and so have no wire form, with the reason. */
    private static final Map<String, String> NOT_VALUES = Map.of(
            "CniException", "an exception (its CniError is a value and has a case)",
            "ConfigNode", "a position inside a document being decoded, not a value",
            "CniJson", "static codec entry points, no instances",
            "CniNames", "static naming rules, no instances",
            "IpText", "static address text rules, no instances");

    /** One value of a type, its wire JSON, and the type to read it back as. */
    record Case(Class<?> type, Object value, String json) {
        @Override
        public String toString() {
            return type.getSimpleName();
        }
    }

    /** The record the values are nested in: a component, a list and a map of the type under test. */
    record Box<T>(String label, T value, List<T> list, Map<String, T> byName) {
    }

    static List<Case> cases() throws Exception {
        Result result = (Result) CniJson.decodeResult(("""
                {"cniVersion":"1.1.0","interfaces":[{"name":"eth0","mac":"0a:58:0a:01:00:05","mtu":1450,\
                "sandbox":"/run/netns/a","socketPath":"/run/vhost.sock","pciID":"0000:00:1f.6"}],\
                "ips":[{"interface":0,"address":"10.1.0.5/16","gateway":"10.1.0.1"},{"interface":-1,\
                "address":"2001:db8::5/64"}],"routes":[{"dst":"0.0.0.0/0","gw":"10.1.0.1","mtu":1400,"advmss":1360,\
                "priority":10,"table":0,"scope":253}],"dns":{"nameservers":["10.1.0.10"],"domain":"example.org",\
                "search":["svc.example.org"],"options":["ndots:5"]}}""").getBytes(UTF_8), null);
        LegacyResult legacy = (LegacyResult) CniJson.decodeResult("""
                {"cniVersion":"0.2.0","ip4":{"ip":"10.1.0.5/16","gateway":"10.1.0.1","routes":[{"dst":"0.0.0.0/0"}]},\
                "ip6":{"ip":"2001:db8::5/64"},"dns":{}}""".getBytes(UTF_8), null);
        Result v040 = (Result) CniJson.decodeResult("""
                {"cniVersion":"0.4.0","ips":[{"version":"4","address":"10.1.0.5/16"}],"dns":{}}"""
                .getBytes(UTF_8), null);
        String list = """
                {"cniVersion":"1.1.0","name":"dbnet","plugins":[{"type":"bridge","zeta":1.50,"alpha":[1e3]},\
                {"type":"portmap","capabilities":{"portMappings":true}}]}""";
        String config = """
                {"cniVersion":"1.0.0","name":"dbnet","type":"bridge","ipam":{"type":"host-local"}}""";
        Json nested = Json.parse("{\"b\":[1.50,null,true,\"x\"],\"a\":{}}");
        return List.of(
                new Case(CniArgs.class, CniArgs.parse("IgnoreUnknown=1;K8S_POD_NAME=web;EMPTY="),
                        "\"IgnoreUnknown=1;K8S_POD_NAME=web;EMPTY=\""),
                new Case(CniError.class, new CniError("1.0.0", 11, "busy", "retry later"),
                        "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"busy\",\"details\":\"retry later\"}"),
                new Case(CniResult.class, legacy, compact(legacy)),
                new Case(Result.class, result, compact(result)),
                new Case(Result.class, v040, "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\","
                        + "\"address\":\"10.1.0.5/16\"}],\"dns\":{}}"),
                new Case(LegacyResult.class, legacy, "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.1.0.5/16\","
                        + "\"gateway\":\"10.1.0.1\",\"routes\":[{\"dst\":\"0.0.0.0/0\"}]},\"ip6\":{\"ip\":"
                        + "\"2001:db8::5/64\"},\"dns\":{}}"),
                new Case(CniVersion.class, CniVersion.V0_4_0, "\"0.4.0\""),
                new Case(Command.class, Command.GC, "\"GC\""),
                new Case(Dns.class, result.dns(), "{\"nameservers\":[\"10.1.0.10\"],\"domain\":\"example.org\","
                        + "\"search\":[\"svc.example.org\"],\"options\":[\"ndots:5\"]}"),
                new Case(Dns.class, Dns.EMPTY, "{}"),
                new Case(GcAttachment.class, new GcAttachment("c1", "eth0"),
                        "{\"containerID\":\"c1\",\"ifname\":\"eth0\"}"),
                new Case(Interface.class, result.interfaces().getFirst(), "{\"name\":\"eth0\",\"mac\":"
                        + "\"0a:58:0a:01:00:05\",\"mtu\":1450,\"sandbox\":\"/run/netns/a\",\"socketPath\":"
                        + "\"/run/vhost.sock\",\"pciID\":\"0000:00:1f.6\"}"),
                new Case(Interface.class, new Interface("cni0", "", ""), "{\"name\":\"cni0\"}"),
                new Case(IpConfig.class, result.ips().getFirst(),
                        "{\"interface\":0,\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\"}"),
                new Case(IpConfig.class, result.ips().get(1), "{\"interface\":-1,\"address\":\"2001:db8::5/64\"}"),
                new Case(IpConfig.class, new IpConfig(IpPrefix.parse("10.9.0.2/24", "t"), null),
                        "{\"address\":\"10.9.0.2/24\"}"),
                new Case(IpPrefix.class, IpPrefix.parse("10.1.0.5/16", "t"), "\"10.1.0.5/16\""),
                new Case(Json.class, nested, "{\"b\":[1.50,null,true,\"x\"],\"a\":{}}"),
                new Case(Json.class, Json.NULL, "null"),
                new Case(JsonObject.class, nested, "{\"b\":[1.50,null,true,\"x\"],\"a\":{}}"),
                new Case(JsonArray.class, new JsonArray(List.of(Json.of(1), Json.of("x"))), "[1,\"x\"]"),
                new Case(JsonString.class, Json.of("a\"b"), "\"a\\\"b\""),
                new Case(JsonNumber.class, new JsonNumber("1.50e3"), "1.50e3"),
                new Case(JsonBoolean.class, JsonBoolean.TRUE, "true"),
                new Case(JsonNull.class, Json.NULL, "null"),
                new Case(LegacyIpConfig.class, legacy.ip4(), "{\"ip\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\","
                        + "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}"),
                new Case(NetworkConfigList.class, NetworkConfigList.decode(list.getBytes(UTF_8)), list),
                new Case(PluginConfig.class, CniJson.decodePluginConfig(config.getBytes(UTF_8)), config),
                new Case(Route.class, result.routes().getFirst(), "{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\","
                        + "\"mtu\":1400,\"advmss\":1360,\"priority\":10,\"table\":0,\"scope\":253}"),
                new Case(Route.class, new Route(IpPrefix.parse("10.0.0.0/8", "t"), IpText.parseAddress("10.1.0.1",
                        "t")), "{\"dst\":\"10.0.0.0/8\",\"gw\":\"10.1.0.1\"}"),
                new Case(VersionInfo.class, VersionInfo.of(CniVersion.V1_0_0, List.of(CniVersion.V0_4_0,
                        CniVersion.V1_0_0)), "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.4.0\",\"1.0.0\"]}"));
    }

    private static String compact(CniResult result) {
        return new String(CniJson.encode(CniJson.toJson(result)), UTF_8);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void writesTheWireJsonAndReadsItBack(Case c) throws Exception {
        assertThat(MAPPER.writeValueAsString(c.value())).isEqualTo(c.json());
        assertThat(MAPPER.readValue(c.json(), c.type())).isEqualTo(c.value());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void roundTripsNestedInARecordAListAndAMap(Case c) throws Exception {
        JavaType boxType = MAPPER.getTypeFactory().constructParametricType(Box.class, c.type());
        Map<String, Object> byName = new LinkedHashMap<>();
        byName.put("first", c.value());
        byName.put("second", c.value());
        Box<Object> box = new Box<>("a box", c.value(), List.of(c.value(), c.value()), byName);
        String json = MAPPER.writeValueAsString(box);
        assertThat(json).isEqualTo("{\"label\":\"a box\",\"value\":" + c.json() + ",\"list\":[" + c.json() + ","
                + c.json() + "],\"byName\":{\"first\":" + c.json() + ",\"second\":" + c.json() + "}}");
        Object read = MAPPER.readValue(json, boxType);
        assertThat(read).isEqualTo(box);
    }

    @Test
    void everyPublicTypeOfTheModelHasACase() throws Exception {
        Path classes = Path.of(CniJson.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("io/jcni/spec");
        TreeSet<String> publicTypes = new TreeSet<>();
        try (Stream<Path> files = Files.list(classes)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (!name.endsWith(".class") || name.contains("$") || name.equals("package-info.class")) {
                    continue;
                }
                String simple = name.substring(0, name.length() - ".class".length());
                if (Modifier.isPublic(Class.forName("io.jcni.spec." + simple).getModifiers())) {
                    publicTypes.add(simple);
                }
            }
        }
        TreeSet<String> covered = new TreeSet<>(NOT_VALUES.keySet());
        for (Case c : cases()) {
            covered.add(c.type().getSimpleName());
        }
        List<String> missing = new ArrayList<>(publicTypes);
        missing.removeAll(covered);
        assertThat(publicTypes).as("the scan must see the model").contains("Result", "IpConfig", "CniArgs");
        assertThat(missing).as("public types of io.jcni.spec without a round-trip case").isEmpty();
        assertThat(covered).as("cases for types that are not public in io.jcni.spec").isSubsetOf(publicTypes);
    }
}
