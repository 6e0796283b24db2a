package io.jcni.it.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, item 5, for dhcp: containerd removes a sandbox whose namespace is gone with {@code CNI_NETNS=""}. The
 * daemon holds the lease on the node (a file in its state directory, renewals scheduled): bridge's DEL without a
 * namespace releases IPAM through the daemon, which drops the lease and its file. The DHCPRELEASE itself needs the
 * container's interface, gone with its namespace, so the server keeps the lease until it runs out (as with Go's
 * daemon, which cannot send it either); that state is the server's, not the node's.
 */
class DhcpDelWithoutNetnsTest {
    @TempDir
    Path tmp;

    @AutoClose
    DhcpLab lab;

    @BeforeEach
    void lab() {
        Prerequisites.assumeRoot();
        assertThat(Prerequisites.onPath("dnsmasq")).as("dnsmasq (scripts/setup installs dnsmasq-base)").isTrue();
        for (String type : new String[] {"dhcp", "bridge"}) {
            assertThat(Files.isExecutable(Locations.distPlugin(type))).as("jcni's %s: ./mvnw -B package", type)
                    .isTrue();
        }
        lab = DhcpLab.create("dhcpnons", tmp);
        lab.startDnsmasq();
        // dnsmasq pings an address before it offers it (up to ~3 s): the exchange timeout leaves room for that.
        lab.startDaemon("-timeout", "5s");
    }

    @Test
    void delWithAnEmptyNetnsAfterTheSandboxIsGoneDropsTheDaemonsLease() throws Exception {
        TestNetns sandbox = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        CniExec bridge = lab.jcni("bridge");
        JsonNode result = bridge.add(conf, sandbox.path(), "ctr-nons", "eth0").result();
        String hostEnd = result.path("interfaces").get(1).path("name").asText();
        assertThat(lab.stateFiles()).containsExactly(DhcpLab.NETWORK + "-ctr-nons-eth0.json");
        assertThat(lab.dnsmasq.leases()).hasSize(1);

        sandbox.close();
        for (int i = 0; i < 250 && lab.host.kernel().link(hostEnd).isPresent(); i++) {
            Thread.sleep(20);
        }
        CniExec.Outcome del = bridge.del(conf, null, "ctr-nons", "eth0");

        assertThat(del.succeeded()).as(del.process().describe()).isTrue();
        assertThat(lab.stateFiles()).as("the daemon's lease file").isEmpty();
        assertThat(lab.daemon.log()).contains("ctr-nons/" + DhcpLab.NETWORK + "/eth0: interface eth0 is gone, the"
                + " lease cannot be released");
        assertThat(lab.host.kernel().link(hostEnd)).isEmpty();
        CniExec.Outcome check = lab.jcni("dhcp").check(conf, Path.of("/var/run/netns/none"), "ctr-nons", "eth0");
        assertThat(check.msg()).as("the daemon holds nothing for it").isEqualTo("dhcp: no lease for ctr-nons/"
                + DhcpLab.NETWORK + "/eth0");
        assertThat(lab.dnsmasq.leases()).as("the server's lease, which only a DHCPRELEASE on the interface ends")
                .hasSize(1);
        CniExec.Outcome again = bridge.del(conf, null, "ctr-nons", "eth0");
        assertThat(again.succeeded()).as("DEL twice: " + again.process().describe()).isTrue();
    }
}
