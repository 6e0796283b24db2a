package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the model's values look like to a runtime author: printed, and built by hand. */
class ModelTextTest {

    private static IpPrefix cidr(String text) {
        return IpPrefix.parse(text, "t");
    }

    /** {@code InetAddress.toString()} is {@code "/10.0.0.1"}: the records print addresses as CNI does instead. */
    @Test
    void addressesPrintAsCniPrintsThemNotAsInetAddressToString() {
        IpConfig ip = new IpConfig(0, cidr("10.1.0.5/16"), IpText.parseAddress("10.1.0.1", "t"));
        assertThat(ip).hasToString("IpConfig[interfaceIndex=0, address=10.1.0.5/16, gateway=10.1.0.1]");
        assertThat(new IpConfig(cidr("fd00::5/64"), null))
                .hasToString("IpConfig[interfaceIndex=null, address=fd00::5/64, gateway=null]");
        Route route = new Route(cidr("0.0.0.0/0"), IpText.parseAddress("::ffff:10.1.0.1", "t"), 0, 0, 100, 0, null);
        assertThat(route).hasToString("Route[dst=0.0.0.0/0, gw=10.1.0.1, mtu=0, advmss=0, priority=100, table=0, "
                + "scope=null]");
        assertThat(new LegacyIpConfig(cidr("10.1.0.5/16"), IpText.parseAddress("10.1.0.1", "t"),
                List.of(new Route(cidr("0.0.0.0/0"), null))))
                .hasToString("LegacyIpConfig[ip=10.1.0.5/16, gateway=10.1.0.1, routes=[Route[dst=0.0.0.0/0, "
                        + "gw=null, mtu=0, advmss=0, priority=0, table=null, scope=null]]]");
    }

    /** {@code of("type", "bridge")} compiled before too, and threw ClassCastException at run time. */
    @Test
    void objectsTakePlainStringsBooleansAndIntegersAsValues() {
        JsonObject object = JsonObject.of("type", "bridge", "mtu", 1500, "isGateway", true, "big", 1L << 40,
                "ipam", JsonObject.of("type", "host-local"));
        assertThat(object).hasToString("{\"type\":\"bridge\",\"mtu\":1500,\"isGateway\":true,"
                + "\"big\":1099511627776,\"ipam\":{\"type\":\"host-local\"}}");
        assertThatThrownBy(() -> JsonObject.of("ratio", 1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value of ratio is not a JSON value: java.lang.Double (use Json.of, or new "
                        + "JsonNumber(literal) for other numbers)");
        assertThatThrownBy(() -> JsonObject.of(1, "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key 0 is not a string: java.lang.Integer");
        assertThatThrownBy(() -> JsonObject.of("a")).isInstanceOf(IllegalArgumentException.class);
    }

    /** The model's parse methods are unchecked: usable in lambdas and for literals without a try. */
    @Test
    void parsingALiteralNeedsNoTryAndBadInputKeepsItsCode() {
        List<CniArgs> args = List.of("A=1", "B=2").stream().map(CniArgs::parse).toList();
        assertThat(args).extracting(a -> a.get("A").orElse("-")).containsExactly("1", "-");
        CniException e = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class,
                () -> CniArgs.parse("A=1=2"));
        assertThat(e).isInstanceOf(RuntimeException.class);
        assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        Result result = Result.from(new LegacyResult(CniVersion.V0_2_0, new LegacyIpConfig(cidr("10.1.0.5/16"), null,
                null), null, null));
        assertThat(result.cniVersion()).isEqualTo(CniVersion.LATEST);
    }
}
