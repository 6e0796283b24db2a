package io.jcni.it.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.TestHost;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FIFO given as CNI_NETNS used to block jcni's plugins in open(2) forever (bridge ADD and DEL, loopback ADD); Go's
 * plugins refuse it at once. Now every launcher refuses it at once with code 8 naming what the path is, before any
 * side effect. The plugins run exec'd, as a runtime runs them, in a test host, and are killed if they hang.
 */
class FifoAsNetnsTest {
    private static final String TAG = "fifo";
    /** Far above a plugin's run time even on a loaded machine; a hang is killed here and fails the test. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private Path fifo;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("bridge", "host-local", "loopback");
        host = TestHost.create(TAG);
        fifo = tmp.resolve("netns-fifo");
        host.exec("mkfifo", fifo.toString()).requireSuccess();
    }

    @AfterEach
    void releaseStuckReaders() throws Exception {
        if (fifo != null) {
            // A plugin stuck in open(2) on the FIFO (the bug) is released by a writer; O_RDWR never blocks.
            FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
        }
    }

    private ProcessResult call(String type, String command, String conf) {
        Map<String, String> env = Map.of("CNI_COMMAND", command, "CNI_CONTAINERID", "fifo-1", "CNI_NETNS",
                fifo.toString(), "CNI_IFNAME", "eth0", "CNI_PATH", Locations.distCniBin().toString());
        return host.run(List.of(Locations.distPlugin(type).toString()), env, conf, HANG);
    }

    private static void refusedWithCode8(ProcessResult result, String fifoPath) {
        assertThat(result.timedOut()).as("the plugin hung on the FIFO: %s", result.describe()).isFalse();
        assertThat(result.exitCode()).as(result.describe()).isEqualTo(1);
        JsonNode error = Json.parse(result.stdout());
        assertThat(error.path("code").asInt()).isEqualTo(8);
        assertThat(error.path("msg").asText()).isEqualTo("failed to open netns \"" + fifoPath + "\": open netns "
                + fifoPath + ": EINVAL (Invalid argument): not a namespace file (a FIFO)");
    }

    @Test
    void bridgeAddAndDelRefuseAFifoAtOnceAndCreateNothing() throws Exception {
        String bridge = Names.link(TAG);
        String conf = Conflists.bridge(bridge, ",\"cniVersion\":\"1.0.0\",\"name\":\"jcni-fifo\"",
                Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.216.40.0/24")));

        refusedWithCode8(call("bridge", "ADD", conf), fifo.toString());
        refusedWithCode8(call("bridge", "DEL", conf), fifo.toString());

        assertThat(host.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(tmp.resolve("ipam")).as("no IP was reserved").doesNotExist();
    }

    @Test
    void loopbackAddRefusesAFifoAtOnce() throws Exception {
        refusedWithCode8(call("loopback", "ADD",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-fifo\",\"type\":\"loopback\"}"), fifo.toString());
    }
}
