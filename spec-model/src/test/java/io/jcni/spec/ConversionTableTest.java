package io.jcni.spec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case of {@code results/conversions.json}, from every version to every version (5 cases x 7 x 7). The table
 * holds each case written out in every shape; the 1.0.0 -> {1.0.0, 0.4.0, 0.2.0} and 0.2.0 -> {1.0.0, 0.4.0, 0.1.0}
 * columns were checked against Debian's Go libcni 1.1.2 {@code GetAsVersion} when the table was written (identical
 * except that libcni 1.1.2 prints an empty {@code "dns": {}} in 1.0.0, which libcni 1.2+ and jcni omit).
 */
class ConversionTableTest {

    record Pair(String caseName, CniVersion from, CniVersion to) {
        @Override
        public String toString() {
            return caseName + ": " + from + " -> " + to;
        }
    }

    static JsonObject table() throws Exception {
        try (InputStream in = ConversionTableTest.class.getResourceAsStream("results/conversions.json")) {
            return (JsonObject) CniJson.parse(in.readAllBytes());
        }
    }

    static Stream<Pair> pairs() throws Exception {
        List<Pair> pairs = new ArrayList<>();
        for (String name : table().keys()) {
            if (name.startsWith("_")) {
                continue;
            }
            for (CniVersion from : CniVersion.SUPPORTED) {
                for (CniVersion to : CniVersion.SUPPORTED) {
                    pairs.add(new Pair(name, from, to));
                }
            }
        }
        return pairs.stream();
    }

    @Test
    void tableCoversFiveCasesInAllFortyNinePairs() throws Exception {
        assertThat(pairs()).hasSize(5 * 49);
    }

    /** The shape a case is written in for a source or target version. */
    private static String sourceShape(CniVersion version) {
        if (version.equals(CniVersion.V1_1_0)) {
            return "full";
        }
        if (version.equals(CniVersion.V1_0_0)) {
            return "v100";
        }
        return version.hasLegacyResult() ? "legacy" : "v040";
    }

    private static String expectedShape(CniVersion from, CniVersion to) {
        if (from.hasLegacyResult()) {
            return to.hasLegacyResult() ? "legacy" : to.atLeast(CniVersion.V1_0_0) ? "fromLegacy100" : "fromLegacy040";
        }
        if (to.hasLegacyResult()) {
            return "legacy";
        }
        if (from.equals(CniVersion.V1_1_0) && to.equals(CniVersion.V1_1_0)) {
            return "full";
        }
        return to.atLeast(CniVersion.V1_0_0) ? "v100" : "v040";
    }

    private static JsonObject withVersion(JsonObject shape, CniVersion version) {
        JsonObject out = JsonObject.of("cniVersion", Json.of(version.toString()));
        for (var member : shape.members().entrySet()) {
            out = out.with(member.getKey(), member.getValue());
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void convertsAsLibcniGetAsVersion(Pair pair) throws Exception {
        JsonObject written = (JsonObject) table().get(pair.caseName()).orElseThrow();
        JsonObject source = (JsonObject) written.get(sourceShape(pair.from())).orElseThrow();
        if (source.has("error")) {
            return; // no legacy form of this case exists to convert from
        }
        CniResult input = CniJson.decodeResult(CniJson.encode(withVersion(source, pair.from())), pair.from());
        JsonObject expected = (JsonObject) written.get(expectedShape(pair.from(), pair.to())).orElseThrow();
        if (expected.has("error")) {
            CniException e = catchThrowableOfType(CniException.class, () -> input.convertTo(pair.to()));
            assertThat(e).as(pair.toString()).isNotNull();
            assertThat(e.code()).isEqualTo(CniError.INCOMPATIBLE_CNI_VERSION);
            assertThat(e.error().msg()).isEqualTo(((JsonString) expected.get("error").orElseThrow()).value());
            return;
        }
        CniResult converted = input.convertTo(pair.to());
        assertThat(converted.cniVersion()).isEqualTo(pair.to());
        assertThat(converted).isInstanceOf(pair.to().hasLegacyResult() ? LegacyResult.class : Result.class);
        assertThat(CniJson.toJson(converted)).isEqualTo(withVersion(expected, pair.to()));
        if (pair.from().equals(pair.to())) {
            assertThat(converted).isSameAs(input);
        }
    }

    @Test
    void unsupportedTargetFailsWithLibcniMessage() throws CniException {
        CniResult result = CniJson.decodeResult("{\"cniVersion\":\"0.4.0\"}".getBytes(UTF_8));
        CniException e = catchThrowableOfType(CniException.class, () -> result.convertTo(new CniVersion(0, 5, 0)));
        assertThat(e).hasMessage("no converter for CNI result version 0.4.0 to 0.5.0");
        assertThat(e.code()).isEqualTo(1);
    }

    @Test
    void noIpForLegacyIsCodeOneWithLibcniMessageAndDetails() throws CniException {
        Result result = new Result(CniVersion.V1_1_0, List.of(new Interface("eth0", "", "")), List.of(), List.of(),
                Dns.EMPTY);
        CniException e = catchThrowableOfType(CniException.class, () -> result.convertTo(CniVersion.V0_2_0));
        assertThat(e).hasMessage("cannot convert: no valid IP addresses; a 0.2.0 result needs an IPv4 or IPv6 address;"
                + " converting from 1.1.0");
    }

    @Test
    void resultFromConvertsAnythingToTheLatestShape() throws Exception {
        LegacyResult legacy = (LegacyResult) CniJson.decodeResult(("""
                {"cniVersion":"0.2.0","ip4":{"ip":\
                "10.0.0.2/24"}}""").getBytes(UTF_8));
        Result latest = Result.from(legacy);
        assertThat(latest.cniVersion()).isEqualTo(CniVersion.V1_1_0);
        assertThat(latest.ips()).containsExactly(new IpConfig(IpPrefix.parse("10.0.0.2/24", "x"), null));
    }

    @Test
    void ipv4MappedAddressesCountAsIpv4WhenGoingDownLikeGoTo4() throws Exception {
        // libcni decides ip4 vs ip6 with To4(), which is non-nil for ::ffff:a.b.c.d.
        CniResult result = CniJson.decodeResult(("""
                {"cniVersion":"1.0.0","ips":[{"address":\
                "::ffff:10.1.2.3/120"}],"routes":[{"dst":"::ffff:0.0.0.0/96"}]}""").getBytes(UTF_8));
        LegacyResult legacy = (LegacyResult) result.convertTo(CniVersion.V0_2_0);
        assertThat(legacy.ip4().ip()).hasToString("10.1.2.3/24");
        assertThat(legacy.ip4().routes()).extracting(r -> r.dst().toString()).containsExactly("0.0.0.0/0");
        assertThat(legacy.ip6()).isNull();
        assertThat(CniJson.toJson(result.convertTo(CniVersion.V0_4_0)).toString())
                .contains("{\"version\":\"4\",\"address\":\"10.1.2.3/24\"}");
    }
}
