package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class ConfigNodeTest {

    private static final String CONFIG = """
            {"ipam": {"type": "host-local", "ranges": [[{"subnet": "10.1.0.0/16", "gateway": "10.1.0.1"}],
                                                      [{"subnet": "10.0.0.0/33"}]]},
             "mtu": 1500, "big": 70000, "frac": 1.5, "flag": true, "nothing": null, "names": ["a", "b"],
             "mixed": ["a", 1]}""";

    private static CniException failure(ThrowingRunnable action) {
        try {
            action.run();
        } catch (CniException e) {
            return e;
        }
        throw new AssertionError("no CniException");
    }

    interface ThrowingRunnable {
        void run() throws CniException;
    }

    @Test
    void navigatesWithPathsInErrors() throws Exception {
        ConfigNode root = ConfigNode.root(Json.parse(CONFIG));
        ConfigNode range = root.requireField("ipam").array("ranges").get(0).elements().get(0);
        assertThat(range.path()).isEqualTo("ipam.ranges[0][0]");
        assertThat(range.prefix("subnet").map(IpPrefix::toString)).contains("10.1.0.0/16");
        assertThat(range.ip("gateway")).contains(InetAddress.getByAddress(new byte[] {10, 1, 0, 1}));
        ConfigNode bad = root.requireField("ipam").array("ranges").get(1).elements().get(0);
        CniException e = failure(() -> bad.prefix("subnet"));
        assertThat(e.code()).isEqualTo(7);
        assertThat(e).hasMessage("ipam.ranges[1][0].subnet: invalid CIDR \"10.0.0.0/33\"");
    }

    @Test
    void wrongTypesAreCodeSixAndBadValuesCodeSeven() throws CniException {
        ConfigNode root = ConfigNode.root(Json.parse(CONFIG));
        assertThat(root.integer("mtu", 0, 65535)).contains(1500L);
        assertThat(failure(() -> root.integer("big", 0, 65535)))
                .hasMessage("big: 70000 out of range 0-65535")
                .satisfies(e -> assertThat(e.code()).isEqualTo(7));
        assertThat(failure(() -> root.integer("frac", 0, 10)))
                .hasMessage("frac: expected integer, got 1.5")
                .satisfies(e -> assertThat(e.code()).isEqualTo(6));
        assertThat(failure(() -> root.string("mtu")))
                .hasMessage("mtu: expected string, got number")
                .satisfies(e -> assertThat(e.code()).isEqualTo(6));
        assertThat(failure(() -> root.stringList("mixed")))
                .hasMessage("mixed[1]: expected string, got number");
        assertThat(failure(() -> root.array("flag"))).hasMessage("flag: expected array, got boolean");
        assertThat(failure(() -> root.requireField("missing")))
                .hasMessage("missing: missing required field")
                .satisfies(e -> assertThat(e.code()).isEqualTo(7));
        assertThat(failure(() -> ConfigNode.root(Json.parse("[]")).field("a")))
                .hasMessage("JSON document: expected object, got array");
    }

    @Test
    void nullCountsAsAbsent() throws CniException {
        ConfigNode root = ConfigNode.root(Json.parse(CONFIG));
        assertThat(root.field("nothing")).isEmpty();
        assertThat(root.string("nothing")).isEmpty();
        assertThat(root.stringList("nothing")).isEmpty();
        assertThat(root.bool("flag")).contains(true);
        assertThat(root.stringList("names")).containsExactly("a", "b");
        assertThat(failure(() -> root.requireField("nothing"))).hasMessage("nothing: missing required field");
    }

    @Test
    void resultNodesReportInvalidValuesAsDecodingFailures() throws CniException {
        ConfigNode root = ConfigNode.root(Json.parse("{\"address\":\"10.0.0.1\"}"), CniError.DECODING_FAILURE);
        assertThat(failure(() -> root.prefix("address")))
                .hasMessage("address: invalid CIDR \"10.0.0.1\"; expected ADDRESS/PREFIX")
                .satisfies(e -> assertThat(e.code()).isEqualTo(6));
    }

    @Test
    void entriesKeepDocumentOrder() throws CniException {
        ConfigNode root = ConfigNode.root(Json.parse("{\"b\":1,\"a\":2}"));
        assertThat(root.entries()).extracting(java.util.Map.Entry::getKey).containsExactly("b", "a");
        assertThat(root.entries().get(1).getValue().path()).isEqualTo("a");
        assertThatThrownBy(() -> ConfigNode.root(Json.of("x")).asBoolean()).isInstanceOf(CniException.class);
    }
}
