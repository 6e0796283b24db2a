package io.jcni.it.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.CniExec;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end of a lease nobody renews, against busybox's udhcpd (a real server that, unlike dnsmasq, grants leases of a
 * few seconds): the server stops answering, the daemon's renewal at T1 and rebinding at T2 get nothing, and at the
 * lease's end the daemon sets the container's link down (as Go's daemon does) and keeps the lease as expired: CHECK
 * says so, DEL forgets it without a release (there is nothing left to release) and removes the interface.
 */
class DhcpExpiryTest {
    @TempDir
    Path tmp;

    @AutoClose
    DhcpLab lab;

    @BeforeEach
    void lab() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("dhcp", "bridge");
        Prerequisites.assumeCommand("busybox");
        lab = DhcpLab.create("dhcpexp", tmp);
    }

    @Test
    void aLeaseNobodyRenewsExpiresTheLinkGoesDownAndDelCleansUp() throws Exception {
        Path conf = tmp.resolve("udhcpd.conf");
        Files.writeString(conf, String.join("\n", "start " + DhcpLab.SUBNET + ".10", "end " + DhcpLab.SUBNET + ".20",
                "interface br0", "lease_file " + tmp.resolve("udhcpd.leases"), "pidfile " + tmp.resolve("udhcpd.pid"),
                "max_leases 11", "min_lease 5", "opt subnet 255.255.255.0", "opt router " + DhcpLab.SERVER,
                "opt lease 8", ""));
        Files.createFile(tmp.resolve("udhcpd.leases"));
        Process udhcpd = new ProcessBuilder(lab.host.command(List.of("busybox", "udhcpd", "-f", conf.toString())))
                .redirectErrorStream(true).redirectOutput(tmp.resolve("udhcpd.log").toFile()).start();
        try {
            lab.startDaemon("-timeout", "2s");
            TestNetns container = lab.container();
            String network = lab.bridgeConf("1.0.0", "");
            CniExec.Outcome add = lab.jcni("bridge").add(network, container.path(), "ctr-x", "eth0");
            String address = add.result().path("ips").get(0).path("address").asText();
            assertThat(address).startsWith(DhcpLab.SUBNET + ".").endsWith("/24");
            assertThat(container.kernel().link("eth0").orElseThrow().up()).isTrue();
            assertThat(lab.daemon.awaitLog("ctr-x/" + DhcpLab.NETWORK + "/eth0: lease renewed", Duration.ofSeconds(10)))
                    .as("udhcpd's 8 s lease is renewed at 4 s").contains("lease renewed");

            stop(udhcpd);
            String ip = address.substring(0, address.indexOf('/'));
            String log = lab.daemon.awaitLog("lease of " + ip + " expired, bringing interface eth0 DOWN",
                    Duration.ofSeconds(20));
            assertThat(log).contains("ctr-x/" + DhcpLab.NETWORK + "/eth0: renewing lease",
                    "ctr-x/" + DhcpLab.NETWORK + "/eth0: rebinding lease",
                    "ctr-x/" + DhcpLab.NETWORK + "/eth0: lease of " + ip + " expired, bringing interface eth0 DOWN");
            assertThat(log.indexOf("renewing lease", log.indexOf("lease renewed")))
                    .isLessThan(log.indexOf("rebinding lease"));
            assertThat(container.kernel().link("eth0").orElseThrow().up()).as("set down at the end").isFalse();
            assertThat(Files.readString(lab.stateDir.resolve(DhcpLab.NETWORK + "-ctr-x-eth0.json")))
                    .contains("\"state\":\"expired\"");
            CniExec.Outcome check = lab.jcni("dhcp").check(network, container.path(), "ctr-x", "eth0");
            assertThat(check.code()).isEqualTo(100);
            assertThat(check.msg()).startsWith("dhcp: the lease of " + ip + " on eth0 expired at ");

            CniExec.Outcome del = lab.jcni("bridge").del(network, container.path(), "ctr-x", "eth0");
            assertThat(del.succeeded()).as(del.process().describe()).isTrue();
            assertThat(lab.stateFiles()).isEmpty();
            assertThat(container.kernel().link("eth0")).isEmpty();
            assertThat(lab.daemon.log()).as("an expired lease is not released")
                    .doesNotContain("releasing lease of " + ip);
        } finally {
            stop(udhcpd);
        }
    }

    private static void stop(Process process) throws InterruptedException, IOException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
