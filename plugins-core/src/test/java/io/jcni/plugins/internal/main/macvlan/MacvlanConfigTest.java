package io.jcni.plugins.internal.main.macvlan;

import static io.jcni.plugins.internal.pkg.link.LinkPluginsConfigTest.addError;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.pkg.link.LinkPluginsConfigTest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** macvlan's configuration: modes, and CNI_ARGS (the other refusals: {@link LinkPluginsConfigTest}). */
class MacvlanConfigTest {

    @Test
    void macvlanTakesOnlyMacFromCniArgs() throws Exception {
        assertThat(addError("macvlan", "", "FOO=1").code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(addError("macvlan", "", "IgnoreUnknown=1;FOO=1;MAC=xx").msg())
                .isEqualTo("mac: invalid MAC address \"xx\"");
        assertThat(addError("macvlan", "", "IgnoreUnknown=1;FOO=1").code()).as("then the missing namespace")
                .isEqualTo(CniError.INVALID_NETNS);
    }

    @ParameterizedTest
    @CsvSource({"'',BRIDGE", "bridge,BRIDGE", "private,PRIVATE", "vepa,VEPA", "passthru,PASSTHRU"})
    void macvlanModes(String text, io.jcni.netlink.MacvlanMode mode) throws CniException {
        assertThat(MacvlanPlugin.mode(text)).isEqualTo(mode);
    }
}
