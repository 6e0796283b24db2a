package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CniVersionTest {

    @Test
    void emptyVersionIsZeroOneZeroAsInLibcni() throws CniException {
        assertThat(CniVersion.parse("")).isSameAs(CniVersion.V0_1_0);
        assertThat(CniVersion.parse(null)).isSameAs(CniVersion.V0_1_0);
    }

    @Test
    void parsesEverySupportedVersionToItsConstant() throws CniException {
        for (String text : List.of("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0")) {
            CniVersion version = CniVersion.parse(text);
            assertThat(version.toString()).isEqualTo(text);
            assertThat(version.isSupported()).isTrue();
            assertThat(CniVersion.SUPPORTED).containsExactlyElementsOf(List.of(CniVersion.V0_1_0, CniVersion.V0_2_0,
                    CniVersion.V0_3_0, CniVersion.V0_3_1, CniVersion.V0_4_0, CniVersion.V1_0_0, CniVersion.V1_1_0));
        }
        assertThat(CniVersion.parse("1.1.0")).isSameAs(CniVersion.V1_1_0);
    }

    @Test
    void wellFormedButUnknownVersionsAreRepresentableButNotSupported() throws CniException {
        CniVersion version = CniVersion.parse("4.3.21");
        assertThat(version).isEqualTo(new CniVersion(4, 3, 21));
        assertThat(version.isSupported()).isFalse();
        assertThatThrownBy(() -> CniVersion.parseSupported("4.3.21", "cniVersion"))
                .isInstanceOf(CniException.class)
                .hasMessageStartingWith("cniVersion: unsupported CNI version \"4.3.21\"; jcni supports [0.1.0, 0.2.0")
                .satisfies(e -> assertThat(((CniException) e).code()).isEqualTo(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "1.0", "1.0.0.0", "01.0.0", "1.00.0", "-1.0.0", "+1.0.0", "1.0.0-rc1", "1.0.0+b",
            "a.b.c", "1..0", ".1.0", "1.0.", " 1.0.0", "1.0.0 ", "1234567890.0.0", "１.0.0"})
    void malformedVersionsAreCodeOneNamingTheField(String text) {
        assertThatThrownBy(() -> CniVersion.parse(text, "cniVersions[2]"))
                .isInstanceOf(CniException.class)
                .hasMessage("cniVersions[2]: invalid CNI version \"" + text + "\": expected MAJOR.MINOR.PATCH")
                .satisfies(e -> assertThat(((CniException) e).code()).isEqualTo(CniError.INCOMPATIBLE_CNI_VERSION));
    }

    @Test
    void ordersNumericallyNotTextually() throws CniException {
        assertThat(CniVersion.parse("0.10.0")).isGreaterThan(CniVersion.parse("0.9.0"));
        assertThat(CniVersion.parse("1.2.34")).isGreaterThan(CniVersion.parse("1.2.14"));
        assertThat(CniVersion.V1_0_0.atLeast(CniVersion.V0_4_0)).isTrue();
        assertThat(CniVersion.V0_4_0.atLeast(CniVersion.V0_4_0)).isTrue();
        assertThat(CniVersion.V0_3_1.atLeast(CniVersion.V0_4_0)).isFalse();
        assertThat(CniVersion.V0_3_1.before(CniVersion.V0_4_0)).isTrue();
    }

    @Test
    void featureHelpersFollowTheSpecHistory() {
        assertThat(CniVersion.V0_2_0.hasLegacyResult()).isTrue();
        assertThat(CniVersion.V0_3_0.hasLegacyResult()).isFalse();
        assertThat(CniVersion.V0_3_1.supportsCheck()).isFalse();
        assertThat(CniVersion.V0_4_0.supportsCheck()).isTrue();
        assertThat(CniVersion.V1_0_0.supportsGcAndStatus()).isFalse();
        assertThat(CniVersion.V1_1_0.supportsGcAndStatus()).isTrue();
    }

    @Test
    void highestSupportedSkipsVersionsJcniDoesNotImplement() {
        assertThat(CniVersion.highestSupported(List.of(CniVersion.V0_4_0, new CniVersion(1, 2, 0), CniVersion.V1_0_0)))
                .contains(CniVersion.V1_0_0);
        assertThat(CniVersion.highestSupported(List.of(new CniVersion(2, 0, 0)))).isEmpty();
    }
}
