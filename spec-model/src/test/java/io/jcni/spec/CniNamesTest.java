package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CniNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "Z", "0", "dbnet", "my-net_1.2", "9.a-b_c"})
    void validNetworkNamesAndContainerIdsPass(String name) throws CniException {
        assertThat(CniNames.requireNetworkName(name)).isEqualTo(name);
        assertThat(CniNames.requireContainerId(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-a", "_a", ".a", "a b", "a/b", "a:b", "é", "a\n", "../etc"})
    void invalidNetworkNameIsCodeSevenWithTheNameInDetails(String name) {
        assertThatThrownBy(() -> CniNames.requireNetworkName(name))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    assertThat(e.code()).isEqualTo(7);
                    assertThat(e.error().msg()).isEqualTo("invalid characters found in network name");
                    assertThat(e.error().details()).isEqualTo(name);
                });
    }

    @Test
    void missingNetworkNameIsCodeSeven() {
        assertThatThrownBy(() -> CniNames.requireNetworkName(""))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(7))
                .hasMessage("missing network name");
    }

    @Test
    void containerIdMissingIsCodeThreeAndMalformedIsCodeFourAsInLibcni() {
        assertThatThrownBy(() -> CniNames.requireContainerId(""))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(3))
                .hasMessage("missing containerID");
        assertThatThrownBy(() -> CniNames.requireContainerId("abc/def"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4))
                .hasMessage("invalid characters in containerID; abc/def");
    }

    @ParameterizedTest
    @ValueSource(strings = {"eth0", "e", "a.b", "123456789012345", "veth-1_x", "ä1234567890123"})
    void validInterfaceNames(String name) throws CniException {
        assertThat(CniNames.requireInterfaceName(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''|interface name is empty",
            "1234567890123456|interface name is too long; interface name should be less than 16 characters",
            "ää345678901234|interface name is too long; interface name should be less than 16 characters",
            ".|interface name is . or ..",
            "..|interface name is . or ..",
            "a/b|interface name contains / or : or whitespace characters",
            "a:b|interface name contains / or : or whitespace characters",
            "'a b'|interface name contains / or : or whitespace characters",
            "a\u00a0b|interface name contains / or : or whitespace characters",
            "a\u2003b|interface name contains / or : or whitespace characters",
            "a\tb|interface name contains / or : or whitespace characters"})
    void invalidInterfaceNamesAreCodeFourWithLibcniMessages(String name, String message) {
        assertThatThrownBy(() -> CniNames.requireInterfaceName(name))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4))
                .hasMessage(message);
    }

    @Test
    void interfaceNamesThatAreNotUtf8AreRefusedWithCodeFourAndUtf8OnesAreKept() throws CniException {
        // Bytes that are not UTF-8 reach Java as U+FFFD (environment decoding) or, from a String, a lone surrogate.
        for (String name : new String[] {"e\uFFFD", "\uFFFD", "e\uD800", "e\uDC00x"}) {
            assertThatThrownBy(() -> CniNames.requireInterfaceName(name))
                    .isInstanceOfSatisfying(CniException.class, e -> {
                        assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
                        assertThat(e.error().msg()).isEqualTo("interface name is not valid UTF-8");
                    });
        }
        assertThat(CniNames.requireInterfaceName("e\u00e9")).isEqualTo("e\u00e9");
        assertThat(CniNames.requireInterfaceName("e\uD83D\uDE00")).as("a pair is one code point").isNotEmpty();
    }

    @Test
    void goSpaceDiffersFromJavaWhitespace() throws CniException {
        // U+001F is whitespace to Java but not to Go's unicode.IsSpace, so libcni accepts it in an interface name.
        assertThat(CniNames.requireInterfaceName("a\u001fb")).isEqualTo("a\u001fb");
    }

    @ParameterizedTest
    @ValueSource(strings = {"../bridge", "/usr/bin/bridge", "a\\b", ".", "..", "a\0b"})
    void pluginTypeWithPathSeparatorsIsRejectedCve2021_20206(String type) {
        assertThatThrownBy(() -> CniNames.requirePluginType(type, "plugins[1].type"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(7))
                .hasMessageStartingWith("plugins[1].type: invalid plugin type \"" + type + "\"");
    }

    @Test
    void pluginTypeMustBePresent() throws CniException {
        assertThat(CniNames.requirePluginType("host-local", "ipam.type")).isEqualTo("host-local");
        assertThatThrownBy(() -> CniNames.requirePluginType("", "type"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(7))
                .hasMessage("type: missing plugin type");
    }
}
