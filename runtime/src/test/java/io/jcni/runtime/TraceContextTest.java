package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniArgs;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime's side of trace propagation (libcni's): a view made with a trace context hands TRACEPARENT, TRACESTATE
 * and BAGGAGE to every plugin it runs, over what the options' environment says; other views hand none.
 */
class TraceContextTest {
    static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @TempDir
    Path tmp;

    @Test
    void aTracedViewHandsTheContextToEveryPluginAndOthersDoNot() throws Exception {
        Path bin = Files.createDirectory(tmp.resolve("bin"));
        Path seen = tmp.resolve("seen");
        ScriptPlugins.write(bin, "p", "echo \"$CNI_COMMAND|${TRACEPARENT-unset}|${TRACESTATE-unset}|${BAGGAGE-unset}\""
                + " >> '" + seen + "'\ncat > /dev/null\n[ \"$CNI_COMMAND\" = ADD ] && printf '%s' '"
                + CniRuntimeListTest.R1 + "'\nexit 0");
        NetworkConfigList list = CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"n\","
                + "\"plugins\":[{\"type\":\"p\"}]}").getBytes(StandardCharsets.UTF_8));
        RuntimeConf rt = new RuntimeConf("c", "/var/run/netns/x", "eth0", CniArgs.empty(), JsonObject.EMPTY);
        java.util.HashMap<String, String> env = new java.util.HashMap<>(System.getenv());
        env.put("TRACEPARENT", "00-11111111111111111111111111111111-2222222222222222-01");
        try (CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(bin))
                .withCacheDir(tmp.resolve("cache")).withStderr(new ByteArrayOutputStream()).withEnvironment(env))) {
            CniRuntime traced = runtime.withTraceContext(new TraceContext(TRACEPARENT, "congo=t61rcWkgMzE", ""))
                    .withTimeout(Duration.ofSeconds(30));
            traced.addNetworkList(list, rt);
            traced.checkNetworkList(list, rt);
            runtime.withTraceContext(null).delNetworkList(list, rt);
        }
        assertThat(Files.readAllLines(seen)).containsExactly(
                "ADD|" + TRACEPARENT + "|congo=t61rcWkgMzE|unset",
                "CHECK|" + TRACEPARENT + "|congo=t61rcWkgMzE|unset",
                "DEL|00-11111111111111111111111111111111-2222222222222222-01|unset|unset");
    }

    @Test
    void onlyAVersion00TraceparentWithNonZeroIdsIsAccepted() {
        TraceContext c = TraceContext.of(TRACEPARENT);
        assertThat(c.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(c.parentId()).isEqualTo("00f067aa0ba902b7");
        for (String bad : List.of("", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")) {
            assertThat(TraceContext.isValidTraceparent(bad)).as(bad).isFalse();
            assertThatThrownBy(() -> TraceContext.of(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> new TraceContext(TRACEPARENT, "a\nb", "")).isInstanceOf(
                IllegalArgumentException.class);
        assertThat(Map.of("k", new TraceContext(TRACEPARENT, null, null).baggage())).containsEntry("k", "");
    }
}
