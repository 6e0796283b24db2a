package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CniErrorTest {

    @Test
    void wellKnownCodesHaveTheSpecAndLibcniNumbers() {
        assertThat(new int[] {CniError.UNKNOWN, CniError.INCOMPATIBLE_CNI_VERSION, CniError.UNSUPPORTED_FIELD,
                CniError.UNKNOWN_CONTAINER, CniError.INVALID_ENVIRONMENT_VARIABLES, CniError.IO_FAILURE,
                CniError.DECODING_FAILURE, CniError.INVALID_NETWORK_CONFIG, CniError.INVALID_NETNS,
                CniError.TRY_AGAIN_LATER, CniError.PLUGIN_NOT_AVAILABLE, CniError.LIMITED_CONNECTIVITY,
                CniError.FIRST_PLUGIN_SPECIFIC, CniError.INTERNAL})
                .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 50, 51, 100, 999);
        assertThat(CniError.describe(11)).isEqualTo("Try again later");
        assertThat(CniError.describe(9)).isEmpty();
    }

    @Test
    void messageJoinsMsgAndDetailsLikeLibcniError() {
        assertThat(new CniError(7, "Invalid Configuration", "Network 192.168.0.0/31 too small").message())
                .isEqualTo("Invalid Configuration; Network 192.168.0.0/31 too small");
        assertThat(new CniError(7, "Invalid Configuration").message()).isEqualTo("Invalid Configuration");
        CniException exception = new CniException(6, "bad", "worse");
        assertThat(exception).hasMessage("bad; worse");
        assertThat(exception.code()).isEqualTo(6);
        assertThat(exception.error().details()).isEqualTo("worse");
    }

    @Test
    void nullStringsBecomeEmptyAndVersionCanBeAttached() {
        CniError error = new CniError(null, 3, null, null).withCniVersion(CniVersion.V1_0_0);
        assertThat(error).isEqualTo(new CniError("1.0.0", 3, "", ""));
        assertThat(error.isPluginSpecific()).isFalse();
        assertThat(new CniError(100, "x").isPluginSpecific()).isTrue();
        assertThat(new CniError(999, "x").isPluginSpecific()).isFalse();
    }
}
