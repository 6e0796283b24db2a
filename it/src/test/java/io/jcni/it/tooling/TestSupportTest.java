package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.IpRoute;
import io.jcni.it.support.LeakCheck;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The support classes themselves: if these break, every integration test's verdict is suspect. */
class TestSupportTest {

    private static final String TAG = "iop";

    @Test
    void processesCaptureStdoutStderrExitAndFeedStdinAndEnv() {
        ProcessResult result = Processes.run(List.of("sh", "-c", "cat; echo \"$IOP_VAR\" >&2; exit 3"),
                Map.of("IOP_VAR", "from-env"), "from-stdin", Duration.ofSeconds(10));

        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.stdout()).isEqualTo("from-stdin");
        assertThat(result.stderr()).isEqualTo("from-env\n");
        assertThat(result.timedOut()).isFalse();
        assertThat(result.succeeded()).isFalse();
        assertThatThrownBy(result::requireSuccess).hasMessageContaining("exited 3").hasMessageContaining("from-env");
    }

    @Test
    void aTimeoutKillsTheProcessAndItsChildren() {
        ProcessResult result = Processes.run(List.of("sh", "-c", "echo started; sleep 30 & wait"), Map.of(), null,
                Duration.ofMillis(300));

        assertThat(result.timedOut()).isTrue();
        assertThat(result.exitCode()).isEqualTo(-1);
        assertThat(result.stdout()).isEqualTo("started\n");
        assertThat(result.elapsed()).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void linkNamesFitIfnamsizAndNetnsNamesCarryThePrefix() {
        String link = Names.link(TAG);
        assertThat(link).hasSize(Names.MAX_LINK_NAME).startsWith("jcni-iop-");
        assertThat(Names.netns(TAG)).matches("jcni-iop-[0-9a-f]{8}");
        assertThat(Names.link(TAG)).isNotEqualTo(link);
        assertThatThrownBy(() -> Names.link("much-too-long")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTestNetnsIsCreatedReadBackAndDeletedTwice() {
        Prerequisites.assumeRoot();
        TestNetns netns = TestNetns.create(TAG);
        try {
            assertThat(netns.path()).isEqualTo(TestNetns.RUN_DIR.resolve(netns.name()));
            assertThat(LeakCheck.netns(Names.prefix(TAG))).contains(netns.name());
            netns.exec("ip", "link", "add", "iop-a", "type", "veth", "peer", "name", "iop-b").requireSuccess();
            netns.exec("ip", "link", "set", "iop-a", "up", "mtu", "1400").requireSuccess();
            netns.exec("ip", "link", "set", "iop-b", "up").requireSuccess();
            netns.exec("ip", "addr", "add", "192.0.2.5/24", "dev", "iop-a").requireSuccess();
            netns.exec("ip", "route", "add", "198.51.100.0/24", "via", "192.0.2.1").requireSuccess();

            IpLink a = netns.kernel().link("iop-a").orElseThrow();
            assertThat(a.kind()).isEqualTo("veth");
            assertThat(a.mtu()).isEqualTo(1400);
            assertThat(a.up()).isTrue();
            assertThat(a.mac()).matches("([0-9a-f]{2}:){5}[0-9a-f]{2}");
            assertThat(netns.kernel().link("lo").orElseThrow().kind()).isNull();
            assertThat(netns.kernel().addresses("iop-a")).filteredOn(ad -> ad.family().equals("inet"))
                    .containsExactly(new IpAddress("iop-a", "inet", "192.0.2.5", 24, "global"));
            assertThat(netns.kernel().routes("iop-a")).filteredOn(r -> r.family().equals("inet"))
                    .extracting(IpRoute::dst, IpRoute::gateway, IpRoute::scope)
                    .containsExactlyInAnyOrder(
                            tuple("192.0.2.0/24", null, "link"),
                            tuple("198.51.100.0/24", "192.0.2.1", null));
            assertThat(netns.kernel().sysctl("net/ipv4/conf/iop-a/forwarding")).isIn("0", "1");
        } finally {
            netns.close();
        }
        netns.close();
        assertThat(LeakCheck.netns(Names.prefix(TAG))).doesNotContain(netns.name());
        assertThat(Files.exists(netns.path())).isFalse();
    }
}
