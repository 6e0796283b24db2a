package io.jcni.plugins.internal.main.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.Link;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniJson;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * bridge's DEL with {@code CNI_NETNS=""} (containerd's teardown of a sandbox whose namespace it closed) while a
 * process still holds the namespace: the veth pair lives on, and DEL deletes it through the host end prevResult
 * records. Layer 2 (no IPAM), in a host of the test's own ({@link Worlds}: its container namespace has no path).
 */
class BridgeDelWithoutNetnsTest {
    private final Skel skel = PluginRegistry.skel("bridge");
    private Worlds w;

    @BeforeEach
    void world() throws Exception {
        w = Worlds.create();
    }

    @AfterEach
    void close() {
        if (w != null) {
            w.close();
        }
    }

    private PluginCall.Outcome inHost(PluginCall call) {
        return w.hostNs.call(() -> call.run(skel));
    }

    private static String conf(String prevResult) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"brnet\",\"type\":\"bridge\",\"bridge\":\"jcni-ut-br0\""
                + (prevResult == null ? "" : ",\"prevResult\":" + prevResult) + "}";
    }

    @Test
    void delWithAnEmptyNetnsDeletesTheSurvivingHostEndAndKeepsTheBridge() throws Exception {
        PluginCall.Outcome added = inHost(PluginCall.of("ADD").netns(w.containerNs.path().toString())
                .containerId("ctr1").ifName("eth0").stdin(conf(null)));
        Result result = (Result) added.result();
        String hostEnd = result.interfaces().get(1).name();
        assertThat(w.host.nl().findLink(hostEnd)).isPresent();
        String prevResult = new String(CniJson.encode(result), StandardCharsets.UTF_8);

        PluginCall del = PluginCall.of("DEL").netns("").containerId("ctr1").ifName("eth0").stdin(conf(prevResult));
        inHost(del).ok();

        assertThat(w.host.nl().findLink(hostEnd)).as("the host end, and so the pair").isEmpty();
        assertThat(w.container.nl().findLink("eth0")).isEmpty();
        Link bridge = w.host.nl().link("jcni-ut-br0");
        assertThat(bridge.name()).as("the bridge is the network's, not the attachment's").isEqualTo("jcni-ut-br0");
        inHost(del).ok();
    }
}
