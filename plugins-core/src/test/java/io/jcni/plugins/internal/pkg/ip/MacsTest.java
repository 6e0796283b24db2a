package io.jcni.plugins.internal.pkg.ip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.MacAddress;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MacsTest {

    @ParameterizedTest
    @ValueSource(strings = {"c2:b0:57:49:47:f1", "C2:B0:57:49:47:F1", "c2-b0-57-49-47-f1", "c2b0.5749.47f1"})
    void goAcceptsTheseSixByteForms(String text) throws CniException {
        assertThat(Macs.parse(text, "mac")).isEqualTo(MacAddress.parse("c2:b0:57:49:47:f1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "c2:b0:57:49:47", "c2:b0:57:49:47:f1:00", "c2-b0:57:49:47:f1", "c2:b0:57:49:47:g1",
        "c2b0.5749.47f", "c2b05749.47f1", "c2:b0:57:49:47:f1 ", "+2:b0:57:49:47:f1",
        "02:00:5e:10:00:00:00:01"})
    void everythingElseIsCode7NamingTheField(String text) {
        assertThatThrownBy(() -> Macs.parse(text, "args.cni.mac")).isInstanceOfSatisfying(CniException.class, e -> {
            assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(e.error().msg()).isEqualTo("args.cni.mac: invalid MAC address \"" + text + "\"");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"01:00:5e:00:00:01", "ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00", "33-33-00-00-00-01"})
    void anInterfaceAddressMustBeUnicastAndNotZero(String text) throws CniException {
        Macs.parse(text, "mac");
        assertThatThrownBy(() -> Macs.parseUnicast(text, "mac")).isInstanceOfSatisfying(CniException.class,
                e -> assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG));
    }
}
