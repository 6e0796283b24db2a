package io.jcni.plugins.internal.main.ipvlan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** ipvlan's configuration: modes, and the master of a chained ipvlan. */
class IpvlanConfigTest {
    static java.util.Optional<io.jcni.spec.Result> prev(String interfaces) throws CniException {
        return java.util.Optional.of(io.jcni.spec.Result.from(io.jcni.spec.CniJson.decodeResult(
                ("{\"cniVersion\":\"1.0.0\",\"interfaces\":" + interfaces + "}")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    }

    @Test
    void ipvlanChainedTakesTheSingleNamedInterfaceOfThePrevResultAsMaster() throws Exception {
        IpvlanPlugin.Config defaulted = new IpvlanPlugin.Config("", io.jcni.netlink.IpvlanMode.L2, 0, false,
                io.jcni.spec.Dns.EMPTY);
        assertThat(IpvlanPlugin.masterName(defaulted, prev("[{\"name\":\"ens3\",\"sandbox\":\"/n\"}]"), null))
                .isEqualTo("ens3");
        IpvlanPlugin.Config configured = new IpvlanPlugin.Config("eth1", io.jcni.netlink.IpvlanMode.L3, 0, false,
                io.jcni.spec.Dns.EMPTY);
        assertThat(IpvlanPlugin.masterName(configured, prev("[{\"name\":\"a\"},{\"name\":\"b\"}]"), null))
                .isEqualTo("eth1");
        for (String interfaces : new String[] {"[{\"name\":\"a\"},{\"name\":\"b\"}]", "[]"}) {
            assertThatThrownBy(() -> IpvlanPlugin.masterName(defaulted, prev(interfaces), null))
                    .isInstanceOfSatisfying(CniException.class, e -> {
                        assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
                        assertThat(e.error().msg())
                                .isEqualTo("chained master failure. PrevResult lacks a single named interface");
                    });
        }
    }

    @ParameterizedTest
    @CsvSource({"'',L2", "l2,L2", "l3,L3", "l3s,L3S"})
    void ipvlanModes(String text, io.jcni.netlink.IpvlanMode mode) throws CniException {
        assertThat(IpvlanPlugin.mode(text)).isEqualTo(mode);
    }
}
