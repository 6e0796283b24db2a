package io.jcni.plugins.internal.main.ptp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import org.junit.jupiter.api.Test;

/** ptp's configuration errors, all before any side effect. */
class PtpConfigTest {
    private final Skel skel = PluginRegistry.skel("ptp");

    CniError addError(String extra) throws Exception {
        return PluginCall.of("ADD").netns("/var/run/netns/jcni-net-never")
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"ptp\"" + extra + "}").run(skel).error();
    }

    @Test
    void anUnknownIpMasqBackendIsRefusedAsGoRefusesIt() throws Exception {
        CniError error = addError(",\"ipMasq\":true,\"ipMasqBackend\":\"pf\",\"ipam\":{\"type\":\"host-local\"}");
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("unknown ipmasq backend \"pf\"");
    }

    @Test
    void ipMasqWithAKnownBackendGetsPastTheConfiguration() throws Exception {
        for (String backend : new String[] {"", ",\"ipMasqBackend\":\"iptables\"", ",\"ipMasqBackend\":\"nftables\""}) {
            CniError error = addError(",\"ipMasq\":true" + backend + ",\"ipam\":{\"type\":\"host-local\"}");
            assertThat(error.code()).as(backend).isEqualTo(CniError.INVALID_NETNS);
        }
    }

    @Test
    void ipamIsRequired() throws Exception {
        CniError error = addError("");
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("ipam.type: missing plugin type");
    }

    @Test
    void mtuIsRangeChecked() throws Exception {
        CniError error = addError(",\"mtu\":-5,\"ipam\":{\"type\":\"host-local\"}");
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("mtu: -5 out of range 0-65535");
    }

    @Test
    void aMissingNamespaceIsCode8() throws Exception {
        CniError error = addError(",\"ipam\":{\"type\":\"host-local\"}");
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETNS);
    }
}
