package io.jcni.spec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResultCodecTest {

    static byte[] resource(String name) throws IOException {
        try (InputStream in = ResultCodecTest.class.getResourceAsStream("results/" + name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    static InetAddress ip(String text) throws CniException {
        return IpText.parseAddress(text, "test");
    }

    static IpPrefix cidr(String text) throws CniException {
        return IpPrefix.parse(text, "test");
    }

    static CniException failure(String json, CniVersion expected) {
        CniException e = catchThrowableOfType(CniException.class,
                () -> CniJson.decodeResult(json.getBytes(UTF_8), expected));
        assertThat(e).as("decoding %s", json).isNotNull();
        return e;
    }

    @Test
    void decodesADualStackResultIntoRealValues() throws Exception {
        Result result = (Result) CniJson.decodeResult(resource("dualstack-1.0.0-input.json"), CniVersion.V1_0_0);
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        assertThat(result.interfaces()).containsExactly(new Interface("cni0", "00:11:22:33:44:55", ""),
                new Interface("eth0", "99:88:77:66:55:44", "/var/run/netns/blue"));
        assertThat(result.ips()).containsExactly(new IpConfig(1, cidr("10.1.0.5/16"), ip("10.1.0.1")),
                new IpConfig(1, cidr("2001:db8::5/64"), ip("2001:db8::1")),
                new IpConfig(null, cidr("10.2.0.7/24"), null));
        assertThat(result.routes()).containsExactly(new Route(cidr("0.0.0.0/0"), null),
                new Route(cidr("::/0"), ip("2001:db8::1")), new Route(cidr("192.168.0.0/16"), ip("10.1.0.254")));
        assertThat(result.dns()).isEqualTo(new Dns(List.of("10.1.0.1"), "example.com", List.of("a.example.com"),
                List.of("ndots:2")));
    }

    @Test
    void printsExactlyWhatLibcniPrints() throws Exception {
        // Expected text: Go's libcni 1.1.2 (Debian) Result.PrintTo of the same input, stored verbatim.
        CniResult result = CniJson.decodeResult(resource("dualstack-1.0.0-input.json"), CniVersion.V1_0_0);
        assertThat(new String(CniJson.encode(result), UTF_8))
                .isEqualTo(new String(resource("dualstack-as-100-libcni-1.1.2.json"), UTF_8));
        CniResult as040 = CniJson.decodeResult(resource("dualstack-as-040-libcni-1.1.2.json"), CniVersion.V0_4_0);
        assertThat(new String(CniJson.encode(as040), UTF_8))
                .isEqualTo(new String(resource("dualstack-as-040-libcni-1.1.2.json"), UTF_8));
        CniResult as020 = CniJson.decodeResult(resource("dualstack-as-020-libcni-1.1.2.json"), CniVersion.V0_2_0);
        assertThat(new String(CniJson.encode(as020), UTF_8))
                .isEqualTo(new String(resource("dualstack-as-020-libcni-1.1.2.json"), UTF_8));
    }

    @Test
    void legacyResultHasIp4AndIp6WithTheirRoutes() throws Exception {
        LegacyResult result = (LegacyResult) CniJson.decodeResult(resource("dualstack-as-020-libcni-1.1.2.json"),
                CniVersion.V0_2_0);
        assertThat(result.ip4()).isEqualTo(new LegacyIpConfig(cidr("10.1.0.5/16"), ip("10.1.0.1"),
                List.of(new Route(cidr("0.0.0.0/0"), null), new Route(cidr("192.168.0.0/16"), ip("10.1.0.254")))));
        assertThat(result.ip6()).isEqualTo(new LegacyIpConfig(cidr("2001:db8::5/64"), ip("2001:db8::1"),
                List.of(new Route(cidr("::/0"), ip("2001:db8::1")))));
    }

    @Test
    void version110CarriesInterfaceAndRouteExtras() throws CniException {
        String json = """
                {
                    "cniVersion": "1.1.0",
                    "interfaces": [
                        {
                            "name": "net1",
                            "mac": "0a:58:0a:01:00:05",
                            "mtu": 9000,
                            "sandbox": "/run/netns/x",
                            "socketPath": "/var/run/vhu.sock",
                            "pciID": "0000:3b:00.1"
                        }
                    ],
                    "ips": [
                        {
                            "interface": 0,
                            "address": "10.1.0.5/16"
                        }
                    ],
                    "routes": [
                        {
                            "dst": "10.9.0.0/16",
                            "gw": "10.1.0.1",
                            "mtu": 1400,
                            "advmss": 1360,
                            "priority": 100,
                            "table": 0,
                            "scope": 253
                        }
                    ]
                }""";
        Result result = (Result) CniJson.decodeResult(json.getBytes(UTF_8), CniVersion.V1_1_0);
        assertThat(result.interfaces().getFirst()).isEqualTo(new Interface("net1", "0a:58:0a:01:00:05", 9000,
                "/run/netns/x", "/var/run/vhu.sock", "0000:3b:00.1"));
        assertThat(result.routes().getFirst()).isEqualTo(new Route(cidr("10.9.0.0/16"), ip("10.1.0.1"), 1400, 1360,
                100, 0, 253));
        assertThat(result.dns().isEmpty()).isTrue();
        assertThat(new String(CniJson.encode(result), UTF_8)).isEqualTo(json);
    }

    @Test
    void olderVersionsIgnoreFieldsTheyDoNotDefine_specOverLibcniWhichKeepsRouteExtrasIn040() throws CniException {
        // libcni >= 1.2 shares one Route type across versions and would keep "mtu"/"table" in a 0.4.0 result and
        // everything in a 1.0.0 one; the 0.4.0 and 1.0.0 schemas define neither, so jcni reads them as unknown fields.
        String json = """
                {"cniVersion":"%s","interfaces":[{"name":"e","mtu":9000,"pciID":"x"}],\
                "ips":[{"version":"4","address":"10.0.0.2/24"}],\
                "routes":[{"dst":"0.0.0.0/0","mtu":1400,"table":7}],"unknown":1}""";
        for (CniVersion version : List.of(CniVersion.V0_3_0, CniVersion.V0_3_1, CniVersion.V0_4_0,
                CniVersion.V1_0_0)) {
            Result result = (Result) CniJson.decodeResult(json.formatted(version).getBytes(UTF_8), version);
            assertThat(result.interfaces()).containsExactly(new Interface("e", "", ""));
            assertThat(result.routes()).containsExactly(new Route(cidr("0.0.0.0/0"), null));
            assertThat(result.ips()).containsExactly(new IpConfig(null, cidr("10.0.0.2/24"), null));
        }
    }

    @Test
    void dnsIsAlwaysPrintedBefore100AndOmittedWhenEmptyFrom100On() throws CniException {
        Result v040 = new Result(CniVersion.V0_4_0, List.of(), List.of(new IpConfig(cidr("10.0.0.2/24"), null)),
                List.of(), Dns.EMPTY);
        assertThat(CniJson.toJson(v040).toString()).isEqualTo("""
                {"cniVersion":"0.4.0","ips":[{"version":"4",\
                "address":"10.0.0.2/24"}],"dns":{}}""");
        Result v100 = new Result(CniVersion.V1_0_0, List.of(), v040.ips(), List.of(), Dns.EMPTY);
        assertThat(CniJson.toJson(v100).toString()).isEqualTo("""
                {"cniVersion":"1.0.0","ips":[{"address":\
                "10.0.0.2/24"}]}""");
        LegacyResult legacy = new LegacyResult(CniVersion.V0_1_0, null, null, null);
        assertThat(new String(CniJson.encode(legacy), UTF_8)).isEqualTo("{\n    \"cniVersion\": \"0.1.0\",\n"
                + "    \"dns\": {}\n}");
    }

    @Test
    void missingVersionTakesTheExpectedOneAsParsePrevResultDoes() throws CniException {
        CniResult result = CniJson.decodeResult("{\"ips\":[{\"address\":\"10.1.0.5/16\"}]}".getBytes(UTF_8),
                CniVersion.V1_0_0);
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        CniResult sameType = CniJson.decodeResult("{\"cniVersion\":\"0.3.1\"}".getBytes(UTF_8), CniVersion.V0_4_0);
        assertThat(sameType.cniVersion()).isEqualTo(CniVersion.V0_3_1);
        CniResult noExpectation = CniJson.decodeResult("{\"ip4\":{\"ip\":\"10.0.0.1/8\"}}".getBytes(UTF_8));
        assertThat(noExpectation).isInstanceOf(LegacyResult.class);
        assertThat(noExpectation.cniVersion()).isEqualTo(CniVersion.V0_1_0);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        {"cniVersion":"0.2.0"}|1.0.0|1|cniVersion: result version 0.2.0 does not match the expected version 1.0.0
        {"cniVersion":"1.1.0"}|0.4.0|1|cniVersion: result version 1.1.0 does not match the expected version 0.4.0
        {"cniVersion":"5678.456"}|1.0.0|1|cniVersion: invalid CNI version "5678.456": expected MAJOR.MINOR.PATCH
        {"cniVersion":"0.5.0"}|1.0.0|1|cniVersion: unsupported CNI result version "0.5.0"
        {}|2.0.0|1|cniVersion: unsupported CNI result version "2.0.0"
        {"cniVersion":1}|1.0.0|6|cniVersion: expected string, got number
        {"ips":[{"address":"10.0.0.1"}]}|1.0.0|6|ips[0].address: invalid CIDR "10.0.0.1"; expected ADDRESS/PREFIX
        {"ips":[{"address":"10.0.0.0/33"}]}|1.0.0|6|ips[0].address: invalid CIDR "10.0.0.0/33"
        {"ips":[{"gateway":"10.0.0.1"}]}|1.0.0|6|ips[0].address: missing required field
        {"ips":[{"address":"10.0.0.2/24","gateway":"10.0.0.256"}]}|1.0.0|6|ips[0].gateway: invalid IP address "10.0.0.256"
        {"ips":[{"address":"10.0.0.2/24","interface":"0"}]}|1.0.0|6|ips[0].interface: expected integer, got string
        {"ips":[{"address":"10.0.0.2/24","interface":1.5}]}|1.0.0|6|ips[0].interface: expected integer, got 1.5
        {"ips":[{"address":"10.0.0.2/24","interface":2147483648}]}|1.0.0|6|ips[0].interface: 2147483648 out of range -2147483648-2147483647
        {"ips":{}}|1.0.0|6|ips: expected array, got object
        {"routes":[{"gw":"10.0.0.1"}]}|1.0.0|6|routes[0].dst: missing required field
        {"routes":[{"dst":"0.0.0.0/0","scope":256}]}|1.1.0|6|routes[0].scope: 256 out of range 0-255
        {"routes":[{"dst":"0.0.0.0/0","mtu":1.5}]}|1.1.0|6|routes[0].mtu: expected integer, got 1.5
        {"interfaces":[{"name":5}]}|1.0.0|6|interfaces[0].name: expected string, got number
        {"dns":{"search":[1]}}|1.0.0|6|dns.search[0]: expected string, got number
        {"ip4":{"ip":"2001:db8::1/64"}}|0.2.0|6|ip4.ip: expected an IPv4 address, got 2001:db8::1/64
        {"ip6":{"ip":"10.0.0.1/8"}}|0.2.0|6|ip6.ip: expected an IPv6 address, got 10.0.0.1/8
        {"ip4":{"gateway":"10.0.0.1"}}|0.1.0|6|ip4.ip: missing required field
        []|1.0.0|6|result: expected object, got array
        """)
    void badResultsAreRejectedWithCodeAndPath(String json, String expected, int code, String message)
            throws CniException {
        CniException e = failure(json, CniVersion.parse(expected));
        assertThat(e.code()).isEqualTo(code);
        assertThat(e).hasMessage(message);
    }

    /**
     * What Go libcni 1.1.2 accepts and passes on although the spec does not allow it (its {@code interface} is a
     * {@code *int}, its 0.4.0 {@code version} a free string): accepted here too, so that a runtime does not fail a
     * container a Go runtime starts, with one warning line each for the caller to report. The interop test
     * {@code LenientResultsAgainstLibcniTest} (module it) compares the outcomes with libcni itself.
     */
    @Test
    void outOfRangeInterfaceIndexesAreKeptAsLibcniKeepsThem() throws CniException {
        List<String> warnings = new ArrayList<>();
        Result result = (Result) CniJson.decodeResult(("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
                + "\"ips\":[{\"interface\":-1,\"address\":\"10.0.0.2/24\"},{\"interface\":1,\"address\":\"10.0.0.3/24\"},"
                + "{\"interface\":0,\"address\":\"10.0.0.4/24\"}]}").getBytes(UTF_8), CniVersion.V1_0_0, warnings);
        assertThat(result.ips()).extracting(IpConfig::interfaceIndex).containsExactly(-1, 1, 0);
        assertThat(warnings).containsExactly("ips[0].interface: -1 is not an index of interfaces (1 entry)",
                "ips[1].interface: 1 is not an index of interfaces (1 entry)");
        assertThat(result.interfaceIndexProblems()).isEqualTo(warnings);
        assertThat(new String(CniJson.encode(result), UTF_8)).contains("\"interface\": -1", "\"interface\": 1");
        assertThat(CniJson.decodeResult(CniJson.encode(result), CniVersion.V1_0_0)).isEqualTo(result);
    }

    @Test
    void aContradictingZeroXVersionIsReadAsTheAddressFamilyWithAWarning() throws CniException {
        List<String> warnings = new ArrayList<>();
        Result result = (Result) CniJson.decodeResult(("{\"cniVersion\":\"0.4.0\",\"ips\":["
                + "{\"version\":\"6\",\"address\":\"10.0.0.2/24\"},{\"version\":\"4\",\"address\":\"2001:db8::2/64\"},"
                + "{\"version\":\"4\",\"address\":\"::ffff:10.0.0.3/120\"}]}").getBytes(UTF_8), CniVersion.V0_4_0,
                warnings);
        assertThat(result.ips()).extracting(IpConfig::version).containsExactly("4", "6", "4");
        assertThat(warnings).containsExactly(
                "ips[0].version: \"6\" contradicts the address 10.0.0.2/24: read as \"4\"",
                "ips[1].version: \"4\" contradicts the address 2001:db8::2/64: read as \"6\"");
        assertThat(new String(CniJson.encode(result), UTF_8)).contains("\"version\": \"4\",\n            \"address\": \"10.0.0.2/24\"");
    }

    @Test
    void withoutAWarningListTheSameResultsDecodeSilently() throws CniException {
        assertThat(CniJson.decodeResult("{\"ips\":[{\"interface\":-1,\"address\":\"10.0.0.2/24\"}]}".getBytes(UTF_8),
                CniVersion.V1_0_0)).isInstanceOf(Result.class);
        assertThat(CniJson.decodeResult("{\"ips\":[{\"version\":\"6\",\"address\":\"10.0.0.2/24\"}]}".getBytes(UTF_8),
                CniVersion.V0_4_0)).isInstanceOf(Result.class);
    }

    @Test
    void prevResultIsDecodedInTheConfigurationsVersionWithPathsUnderPrevResult() throws CniException {
        PluginConfig config = CniJson.decodePluginConfig(("""
                {"cniVersion":"0.4.0","name":"dbnet","type":\
                "tuning","prevResult":{"ips":[{"version":"4","address":"10.0.0.5/32","interface":2}],\
                "dns":{"nameservers":["10.1.0.1"]}}}""").getBytes(UTF_8));
        Result prev = (Result) config.prevResult().orElseThrow();
        assertThat(prev.cniVersion()).isEqualTo(CniVersion.V0_4_0);
        assertThat(prev.ips()).containsExactly(new IpConfig(2, cidr("10.0.0.5/32"), null));
        CniException bad = catchThrowableOfType(CniException.class, () -> CniJson.decodePluginConfig(
                "{\"type\":\"t\",\"cniVersion\":\"1.0.0\",\"prevResult\":{\"ips\":[{\"address\":\"x\"}]}}"
                        .getBytes(UTF_8)));
        assertThat(bad).hasMessage("prevResult.ips[0].address: invalid CIDR \"x\"; expected ADDRESS/PREFIX");
        CniException otherType = catchThrowableOfType(CniException.class, () -> CniJson.decodePluginConfig(
                "{\"type\":\"t\",\"cniVersion\":\"1.0.0\",\"prevResult\":{\"cniVersion\":\"0.2.0\"}}".getBytes(UTF_8)));
        assertThat(otherType.code()).isEqualTo(1);
    }

    @Test
    void withPrevResultInsertsTheResultAsLibcniPrintsIt() throws CniException {
        PluginConfig config = CniJson.decodePluginConfig("{\"type\":\"portmap\",\"cniVersion\":\"1.0.0\"}"
                .getBytes(UTF_8));
        Result result = new Result(CniVersion.V1_0_0, List.of(new Interface("eth0", "", "/run/netns/a")),
                List.of(new IpConfig(0, cidr("10.0.0.2/24"), ip("10.0.0.1"))), List.of(), Dns.EMPTY);
        PluginConfig derived = config.withPrevResult(result);
        assertThat(derived.toString()).isEqualTo("""
                {"type":"portmap","cniVersion":"1.0.0","prevResult":\
                {"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"/run/netns/a"}],\
                "ips":[{"interface":0,"address":"10.0.0.2/24","gateway":"10.0.0.1"}]}}""");
        assertThat(derived.prevResult()).contains(result);
        CniException mismatch = catchThrowableOfType(CniException.class,
                () -> config.withPrevResult(new LegacyResult(CniVersion.V0_2_0, null, null, Dns.EMPTY)));
        assertThat(mismatch.code()).isEqualTo(1);
    }

    @Test
    void changingTheVersionUnderAPrevResultOfAnotherResultTypeIsCodeOne() throws CniException {
        PluginConfig config = CniJson.decodePluginConfig(("""
                {"type":"t","cniVersion":"1.0.0",\
                "prevResult":{"cniVersion":"1.0.0","ips":[{"address":"10.0.0.2/24"}]}}""")
                .getBytes(UTF_8));
        assertThat(config.withCniVersion(CniVersion.V1_1_0).cniVersion()).isEqualTo(CniVersion.V1_1_0);
        CniException e = catchThrowableOfType(CniException.class, () -> config.withCniVersion(CniVersion.V0_4_0));
        assertThat(e).hasMessage("prevResult.cniVersion: result version 1.0.0 does not match the expected version"
                + " 0.4.0");
        PluginConfig downgraded = config.without("prevResult").withCniVersion(CniVersion.V0_4_0)
                .withPrevResult(config.prevResult().orElseThrow().convertTo(CniVersion.V0_4_0));
        assertThat(downgraded.toString()).isEqualTo("""
                {"type":"t","cniVersion":"0.4.0","prevResult":\
                {"cniVersion":"0.4.0","ips":[{"version":"4","address":"10.0.0.2/24"}],\
                "dns":{}}}""");
    }

    @Test
    void modelConstructorsEnforceVersionShapes() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Result(CniVersion.V0_2_0, null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LegacyResult(CniVersion.V0_4_0, null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        Result latest = new Result(List.of(), List.of(), List.of(), null);
        assertThat(latest.cniVersion()).isEqualTo(CniVersion.V1_1_0);
        assertThat(latest.dns()).isSameAs(Dns.EMPTY);
    }

    @Test
    void errorsRoundTripInLibcniShapePlusTheSpecsCniVersion() throws CniException {
        CniError error = new CniError("1.0.0", 7, "Invalid Configuration",
                "Network 192.168.0.0/31 too small to allocate from.");
        assertThat(new String(CniJson.encode(error), UTF_8)).isEqualTo("""
                {
                    "cniVersion": "1.0.0",
                    "code": 7,
                    "msg": "Invalid Configuration",
                    "details": "Network 192.168.0.0/31 too small to allocate from."
                }""");
        assertThat(CniJson.decodeError(CniJson.encode(error))).isEqualTo(error);
        assertThat(CniJson.toJson(new CniError(11, "busy")).toString()).isEqualTo("{\"code\":11,\"msg\":\"busy\"}");
        assertThat(CniJson.decodeError("{}".getBytes(UTF_8))).isEqualTo(new CniError(0, ""));
        CniException badCode = catchThrowableOfType(CniException.class,
                () -> CniJson.decodeError("{\"code\":-1,\"msg\":\"x\"}".getBytes(UTF_8)));
        assertThat(badCode).hasMessage("code: -1 out of range 0-2147483647");
        assertThat(badCode.code()).isEqualTo(6);
    }

    @Test
    void versionInfoFollowsLibcniPluginDecoder() throws CniException {
        VersionInfo info = VersionInfo.of(CniVersion.V1_1_0, CniVersion.SUPPORTED);
        assertThat(new String(CniJson.encode(info), UTF_8)).isEqualTo("""
                {"cniVersion":"1.1.0","supportedVersions":\
                ["0.1.0","0.2.0","0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]}\n""");
        assertThat(CniJson.decodeVersionInfo(CniJson.encode(info))).isEqualTo(info);
        assertThat(info.supports(CniVersion.V0_3_1)).isTrue();
        VersionInfo foreign = CniJson.decodeVersionInfo(("""
                {"cniVersion":"some-library-version",\
                "supportedVersions":["some-version","some-other-version"]}""").getBytes(UTF_8));
        assertThat(foreign.supportedVersions()).containsExactly("some-version", "some-other-version");
        assertThat(CniJson.decodeVersionInfo("{\"cniVersion\":\"0.2.0\"}".getBytes(UTF_8)).supportedVersions())
                .containsExactly("0.1.0", "0.2.0");
        assertThat(catchThrowableOfType(CniException.class, () -> CniJson.decodeVersionInfo(
                "{\"supportedVersions\":[\"foo\"]}".getBytes(UTF_8))))
                .hasMessage("decoding version info: missing field cniVersion");
        assertThat(catchThrowableOfType(CniException.class, () -> CniJson.decodeVersionInfo(
                "{\"cniVersion\":\"1.0.0\"}".getBytes(UTF_8))))
                .hasMessage("decoding version info: missing field supportedVersions");
        CniException malformed = catchThrowableOfType(CniException.class,
                () -> CniJson.decodeVersionInfo("{{{".getBytes(UTF_8)));
        assertThat(malformed.code()).isEqualTo(6);
        assertThat(malformed.getMessage()).startsWith("decoding version info: invalid JSON at line 1, column 2");
    }
}
