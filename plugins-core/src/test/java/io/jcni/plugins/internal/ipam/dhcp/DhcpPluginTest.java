package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.PluginCall.Outcome;
import io.jcni.spec.CniError;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dhcp plugin's side, in-process through its skel: its answers without a daemon (STATUS 50, the other verbs 11),
 * with one (a {@link LeaseManager} behind a {@link DaemonServer} in this JVM; leases themselves need a DHCP server and
 * are tested in {@code it}), and its configuration errors, which come before any daemon is asked.
 */
class DhcpPluginTest {
    @TempDir
    Path dir;

    private final Skel skel = PluginRegistry.skel("dhcp");

    String conf(String version, String ipamExtra, String extra) {
        return "{\"cniVersion\":\"" + version + "\",\"name\":\"dnet\",\"type\":\"bridge\",\"ipam\":{\"type\":\"dhcp\","
                + "\"daemonSocketPath\":\"" + dir.resolve("dhcp.sock") + "\"" + ipamExtra + "}" + extra + "}";
    }

    @Test
    void withoutADaemonStatusIs50AndTheOtherVerbs11() throws Exception {
        Outcome status = PluginCall.of("STATUS").stdin(conf("1.1.0", "", "")).run(skel);
        assertThat(status.error().code()).isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
        assertThat(status.error().msg()).startsWith("dhcp daemon not reachable at " + dir.resolve("dhcp.sock") + ": ");
        assertThat(status.error().details()).isEqualTo("start it with: dhcp daemon");
        for (String verb : new String[] {"ADD", "DEL", "CHECK"}) {
            Outcome outcome = PluginCall.of(verb).stdin(conf("1.0.0", "", "")).run(skel);
            assertThat(outcome.error().code()).as(verb).isEqualTo(CniError.TRY_AGAIN_LATER);
            assertThat(outcome.error().msg()).as(verb).startsWith("error dialing DHCP daemon at ");
            assertThat(outcome.stderr()).as("no stack trace").doesNotContain("Exception");
        }
        Outcome gc = PluginCall.of("GC").stdin(conf("1.1.0", "", ",\"cni.dev/valid-attachments\":[]")).run(skel);
        assertThat(gc.error().code()).isEqualTo(CniError.TRY_AGAIN_LATER);
    }

    @Test
    void configurationErrorsComeFirst() throws Exception {
        Outcome badOption = PluginCall.of("ADD").stdin(conf("1.0.0", ",\"request\":[{\"option\":\"nope\"}]", ""))
                .run(skel);
        assertThat(badOption.error().code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(badOption.error().msg()).startsWith("Can not parse option \"nope\"");
        Outcome noIpam = PluginCall.of("ADD").stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"dnet\",\"type\":\"dhcp\"}")
                .run(skel);
        assertThat(noIpam.error().msg()).isEqualTo("IPAM config missing 'ipam' key");
        Outcome relative = PluginCall.of("ADD").netns("netns/x").stdin(conf("1.0.0", "", "")).run(skel);
        assertThat(relative.error().code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        Outcome gcWithoutList = PluginCall.of("GC").stdin(conf("1.1.0", "", "")).run(skel);
        assertThat(gcWithoutList.error().code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(gcWithoutList.error().msg()).startsWith("GC without cni.dev/valid-attachments");
    }

    @Test
    void withADaemonStatusDelAndGcSucceedAndCheckFindsNoLease() throws Exception {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
        try (LeaseManager manager = LeaseManager.start(LeaseManager.Settings.defaults(dir.resolve("state")), quiet);
                DaemonServer server = DaemonServer.bind(dir.resolve("dhcp.sock"), manager, quiet)) {
            Thread serving = new Thread(server::serve);
            serving.start();
            PluginCall.of("STATUS").stdin(conf("1.1.0", "", "")).run(skel).ok();
            PluginCall.of("DEL").stdin(conf("1.0.0", "", "")).run(skel).ok();
            PluginCall.of("DEL").netns("").stdin(conf("0.3.1", "", "")).run(skel).ok();
            PluginCall.of("GC").stdin(conf("1.1.0", "", ",\"cni.dev/valid-attachments\":[]")).run(skel).ok();
            Outcome check = PluginCall.of("CHECK").stdin(conf("1.0.0", "", "")).run(skel);
            assertThat(check.error().code()).isEqualTo(CniError.FIRST_PLUGIN_SPECIFIC);
            assertThat(check.error().msg()).isEqualTo("dhcp: no lease for ctr-1/dnet/eth0");
            Outcome add = PluginCall.of("ADD").netns(dir.resolve("gone").toString()).stdin(conf("1.0.0", "", ""))
                    .run(skel);
            assertThat(add.error().code()).as("the daemon cannot open the namespace").isEqualTo(CniError.INVALID_NETNS);
            server.close();
            serving.join(5000);
        }
    }

    @Test
    void versionIsEveryVersionFrom010To110() throws Exception {
        Outcome version = PluginCall.of("VERSION").stdin("{\"cniVersion\":\"1.1.0\"}").run(skel);
        assertThat(version.status()).isZero();
        assertThat(version.stdout()).contains("\"0.1.0\"", "\"0.2.0\"", "\"0.3.0\"", "\"0.3.1\"", "\"0.4.0\"",
                "\"1.0.0\"", "\"1.1.0\"");
    }
}
