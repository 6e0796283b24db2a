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
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime's JFR events: a recording made around a list ADD that succeeds and one that fails (and is rolled back)
 * holds one {@code io.jcni.PluginCall} per plugin call, in order, with its network, type, command, attachment and
 * error code, as {@code jfr print --events io.jcni.PluginCall} shows them.
 */
class PluginCallEventsTest {
    @TempDir
    Path tmp;

    @Test
    void everyPluginCallIsAnEventWithItsOutcome() throws Exception {
        Path bin = Files.createDirectory(tmp.resolve("bin"));
        FakePlugin.create(bin, "a").answer("ADD", CniRuntimeListTest.R1).answer("DEL", "");
        FakePlugin.create(bin, "b").answer("ADD", CniRuntimeListTest.R2)
                .fail("CHECK", "{\"code\":7,\"msg\":\"no such thing\"}", 1);
        NetworkConfigList list = CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"net1\","
                + "\"plugins\":[{\"type\":\"a\"},{\"type\":\"b\"}]}").getBytes(StandardCharsets.UTF_8));
        RuntimeConf rt = new RuntimeConf("ctr-jfr", "/var/run/netns/test", "eth0", CniArgs.empty(), JsonObject.EMPTY);
        Path file = tmp.resolve("calls.jfr");
        try (CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(bin))
                .withCacheDir(tmp.resolve("cache")).withStderr(new ByteArrayOutputStream()));
                Recording recording = new Recording()) {
            recording.enable("io.jcni.PluginCall");
            recording.start();
            runtime.addNetworkList(list, rt);
            assertThatThrownBy(() -> runtime.checkNetworkList(list, rt)).isInstanceOf(CniRuntimeException.class);
            recording.stop();
            recording.dump(file);
        }
        List<String> seen = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals("io.jcni.PluginCall")) {
                seen.add(e.getString("network") + " " + e.getString("pluginType") + " " + e.getString("command") + " "
                        + e.getString("containerId") + "/" + e.getString("ifName") + " " + e.getInt("errorCode") + " "
                        + e.getString("error"));
                assertThat(e.getDuration()).isPositive();
            }
        }
        assertThat(seen).containsExactly(
                "net1 a ADD ctr-jfr/eth0 0 null",
                "net1 b ADD ctr-jfr/eth0 0 null",
                "net1 a CHECK ctr-jfr/eth0 0 null",
                "net1 b CHECK ctr-jfr/eth0 7 no such thing");
    }
}
