package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dhcp {@code ipam} section as Go reads it (its {@code IPAMConfig}, {@code parseOptionName} and
 * {@code prepareOptions}): option names and numbers, provided values from the config and from CNI_ARGS, the
 * parameter request list with and without the defaults, the client identifier.
 */
class DhcpConfigTest {

    static DhcpConfig config(String ipam) throws CniException {
        return DhcpConfig.of(ConfigNode.at(Json.parse(ipam), "ipam"));
    }

    @Test
    void defaultsAreGos() throws Exception {
        DhcpConfig config = config("{\"type\":\"dhcp\"}");
        assertThat(config.daemonSocketPath()).isEqualTo(Path.of("/run/cni/dhcp.sock"));
        assertThat(config.priority()).isZero();
        DhcpConfig.Prepared prepared = config.prepare("");
        assertThat(prepared.provided()).isEmpty();
        assertThat(prepared.parameterRequestList()).containsExactly(1, 3, 6, 15, 33, 119, 121);
        assertThat(config("{\"daemonSocketPath\":\"/tmp/x.sock\",\"priority\":7}").daemonSocketPath())
                .isEqualTo(Path.of("/tmp/x.sock"));
    }

    @Test
    void optionsAreGosNamesOrNumbers() throws Exception {
        assertThat(DhcpConfig.optionCode("dhcp-client-identifier")).isEqualTo(61);
        assertThat(DhcpConfig.optionCode("subnet-mask")).isEqualTo(1);
        assertThat(DhcpConfig.optionCode("routers")).isEqualTo(3);
        assertThat(DhcpConfig.optionCode("host-name")).isEqualTo(12);
        assertThat(DhcpConfig.optionCode("user-class")).isEqualTo(77);
        assertThat(DhcpConfig.optionCode("vendor-class-identifier")).isEqualTo(60);
        assertThat(DhcpConfig.optionCode("12")).isEqualTo(12);
        assertThat(DhcpConfig.optionCode("0012")).as("ParseUint takes leading zeros").isEqualTo(12);
        assertThat(DhcpConfig.optionCode("255")).isEqualTo(255);
    }

    @Test
    void anUnknownOptionIsCode7WithGosMessage() {
        assertThatThrownBy(() -> config("{\"provide\":[{\"option\":\"hostname\",\"value\":\"x\"}]}"))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
                    assertThat(e.error().msg()).isEqualTo("Can not parse option \"hostname\": Can not parse option: "
                            + "strconv.ParseUint: parsing \"hostname\": invalid syntax");
                });
        assertThatThrownBy(() -> config("{\"request\":[{\"option\":\"256\"}]}")).hasMessageContaining(
                "strconv.ParseUint: parsing \"256\": value out of range");
        assertThatThrownBy(() -> config("{\"request\":[{\"option\":\"-1\"}]}")).hasMessageContaining(
                "parsing \"-1\": invalid syntax");
        assertThatThrownBy(() -> config("{\"provide\":[{\"option\":12}]}")).as("a number where Go wants a string")
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code())
                        .isEqualTo(CniError.DECODING_FAILURE));
        String tooLong = "x".repeat(256);
        assertThatThrownBy(() -> config("{\"provide\":[{\"option\":\"host-name\",\"value\":\"" + tooLong + "\"}]}"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.error().msg()).isEqualTo(
                        "value too long for option \"host-name\": \"" + tooLong + "\""));
    }

    @Test
    void providedValuesComeFromTheConfigThenFromCniArgs() throws Exception {
        DhcpConfig config = config("{\"provide\":[{\"option\":\"host-name\",\"value\":\"fixed\","
                + "\"fromArg\":\"K8S_POD_NAME\"},{\"option\":\"60\",\"value\":\"jcni\"},"
                + "{\"option\":\"user-class\",\"fromArg\":\"MISSING\"}]}");
        Map<Integer, byte[]> withArg = config.prepare("IgnoreUnknown=1;K8S_POD_NAME=pod-a;K8S_POD_NAMESPACE=ns")
                .provided();
        assertThat(withArg).containsOnlyKeys(12, 60);
        assertThat(new String(withArg.get(12), StandardCharsets.UTF_8)).as("CNI_ARGS wins, as in Go")
                .isEqualTo("pod-a");
        assertThat(new String(withArg.get(60), StandardCharsets.UTF_8)).isEqualTo("jcni");
        assertThat(new String(config.prepare("").provided().get(12), StandardCharsets.UTF_8)).isEqualTo("fixed");
        String tooLong = "y".repeat(256);
        assertThatThrownBy(() -> config.prepare("K8S_POD_NAME=" + tooLong)).isInstanceOfSatisfying(
                CniException.class, e -> assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES));
    }

    @Test
    void requestedOptionsGoFirstAndSkipDefaultDropsTheDefaults() throws Exception {
        assertThat(config("{\"request\":[{\"option\":\"42\"},{\"option\":\"routers\"}]}").prepare("")
                .parameterRequestList()).containsExactly(42, 3, 1, 6, 15, 33, 119, 121);
        assertThat(config("{\"request\":[{\"skipDefault\":true},{\"option\":\"subnet-mask\"},{\"option\":\"121\"}]}")
                .prepare("").parameterRequestList()).containsExactly(1, 121);
        assertThat(config("{\"request\":[{\"skipDefault\":true}]}").prepare("").parameterRequestList()).isEmpty();
    }

    @Test
    void theClientIdentifierIsGosCutTo254Bytes() {
        assertThat(DhcpConfig.clientId("c1", "net", "eth0")).isEqualTo("\0c1/net/eth0".getBytes(
                StandardCharsets.UTF_8));
        byte[] id = DhcpConfig.clientId("c".repeat(300), "net", "eth0");
        assertThat(id).hasSize(255);
        assertThat(id[0]).isZero();
        assertThat(id[254]).isEqualTo((byte) 'c');
    }
}
