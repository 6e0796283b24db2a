package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CniArgsTest {

    @Test
    void parsesPairsInOrderAndLastRepeatWins() throws CniException {
        CniArgs args = CniArgs.parse("FOO=BAR;ABC=123;FOO=baz;EMPTY=");
        assertThat(args.pairs()).containsExactly(Map.entry("FOO", "BAR"), Map.entry("ABC", "123"),
                Map.entry("FOO", "baz"), Map.entry("EMPTY", ""));
        assertThat(args.get("FOO")).contains("baz");
        assertThat(args.get("EMPTY")).contains("");
        assertThat(args.get("foo")).isEmpty();
        assertThat(args.toString()).isEqualTo("FOO=BAR;ABC=123;FOO=baz;EMPTY=");
    }

    @Test
    void emptyMeansNoArguments() throws CniException {
        assertThat(CniArgs.parse("").isEmpty()).isTrue();
        assertThat(CniArgs.parse(null).isEmpty()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"A", "A=B;", ";A=B", "A=B=C", "A=B;;C=D", "=;"})
    void piecesThatLibcniRejectsAreCodeFour(String env) {
        assertThatThrownBy(() -> CniArgs.parse(env))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4))
                .hasMessageStartingWith("CNI_ARGS: invalid pair \"");
    }

    @Test
    void emptyKeyIsAcceptedAsAnUnknownArgumentLikeLibcni() throws CniException {
        CniArgs args = CniArgs.parse("=V");
        assertThat(args.get("")).contains("V");
        assertThatThrownBy(() -> args.requireKnown(Set.of("IP")))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4))
                .hasMessage("CNI_ARGS: unknown args [=V]");
    }

    @Test
    void unknownArgsFailUnlessIgnoreUnknownIsTrue() throws CniException {
        CniArgs strict = CniArgs.parse("IP=10.0.0.5;K8S_POD_NAME=web");
        assertThatThrownBy(() -> strict.requireKnown(Set.of("IP")))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4))
                .hasMessage("CNI_ARGS: unknown args [K8S_POD_NAME=web]");
        for (String flag : List.of("1", "true", "True", "TRUE")) {
            CniArgs lenient = CniArgs.parse("IgnoreUnknown=" + flag + ";IP=10.0.0.5;K8S_POD_NAME=web");
            assertThat(lenient.ignoreUnknown()).isTrue();
            assertThat(lenient.requireKnown(Set.of("IP"))).isSameAs(lenient);
        }
        CniArgs off = CniArgs.parse("IgnoreUnknown=0;K8S_POD_NAME=web");
        assertThat(off.ignoreUnknown()).isFalse();
        assertThatThrownBy(() -> off.requireKnown(Set.of())).isInstanceOf(CniException.class);
    }

    @Test
    void invalidIgnoreUnknownValueFailsAtParse() {
        assertThatThrownBy(() -> CniArgs.parse("IgnoreUnknown=yes"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4))
                .hasMessage("CNI_ARGS: invalid boolean value of IgnoreUnknown: \"yes\"; expected 1, 0, true or false");
    }

    @Test
    void ipValuesParseWithoutLookupAndFailNamingTheKey() throws Exception {
        CniArgs args = CniArgs.parse("IP=10.1.2.3;BAD=example.com;NONE=");
        assertThat(args.ip("IP")).contains(InetAddress.getByAddress(new byte[] {10, 1, 2, 3}));
        assertThat(args.ip("NONE")).isEmpty();
        assertThat(args.ip("MISSING")).isEmpty();
        assertThatThrownBy(() -> args.ip("BAD"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4))
                .hasMessage("CNI_ARGS BAD: invalid IP address \"example.com\"");
    }

    @Test
    void runtimeSideConstructionRejectsPairsThatWouldNotParseBack() throws CniException {
        assertThat(CniArgs.of(List.of(Map.entry("K8S_POD_NAME", "web"), Map.entry("IgnoreUnknown", "1"))).toString())
                .isEqualTo("K8S_POD_NAME=web;IgnoreUnknown=1");
        for (Map.Entry<String, String> bad : List.of(Map.entry("A;B", "c"), Map.entry("A", "b=c"),
                Map.entry("", "x"), Map.entry("A", "b;c"))) {
            assertThatThrownBy(() -> CniArgs.of(List.of(bad)))
                    .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4));
        }
        assertThat(CniArgs.parse(CniArgs.of(List.of(Map.entry("A", "1"), Map.entry("B", ""))).toString()))
                .isEqualTo(CniArgs.of(List.of(Map.entry("A", "1"), Map.entry("B", ""))));
    }
}
