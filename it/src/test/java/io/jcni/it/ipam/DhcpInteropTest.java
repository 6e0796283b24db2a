package io.jcni.it.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jcni's dhcp with the Go side on the same {@link DhcpLab} (a test host, dnsmasq on its bridge): Go libcni (the
 * {@code it} driver, built from Debian's libcni 1.1.2) runs jcni's bridge with jcni's dhcp through ADD, CHECK and DEL;
 * and Debian's Go dhcp daemon and plugin (1.1.1) attach a second container beside one of jcni's, so both results and
 * both leases at the server can be compared: the same kind of result (an address of the pool with the router as
 * gateway and the default route through it; jcni adds the DNS settings the server sent), the same client identifier
 * form; DEL releases ours at the server, while Go's bridge deletes the interface before Go's dhcp could send the
 * release on it (that lease stays until it runs out).
 */
class DhcpInteropTest {
    @TempDir
    Path tmp;

    @AutoClose
    DhcpLab lab;

    @BeforeEach
    void lab() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("dhcp", "bridge");
        Prerequisites.assumeCommand("dnsmasq");
        lab = DhcpLab.create("dhcpiop", tmp);
        lab.startDnsmasq();
        lab.startDaemon();
    }

    @Test
    void goLibcniRunsJcnisBridgeWithJcnisDhcp() throws Exception {
        LibcniDriver driver = lab.host.libcni(List.of(Locations.distCniBin()), tmp.resolve("cache"));
        Path conflist = tmp.resolve("dhcp.conflist");
        Files.writeString(conflist, "{\"cniVersion\":\"1.0.0\",\"name\":\"" + DhcpLab.NETWORK + "\",\"plugins\":["
                + lab.bridgeConf("1.0.0", "").replace("\"cniVersion\":\"1.0.0\",\"name\":\"" + DhcpLab.NETWORK
                        + "\",", "") + "]}");
        TestNetns container = lab.container();
        Attachment attachment = Attachment.of("iop-dhcp", "eth0");

        JsonNode result = driver.add(conflist, container.path(), attachment).answer();
        assertThat(result.path("cniVersion").asText()).isEqualTo("1.0.0");
        String address = result.path("ips").get(0).path("address").asText();
        assertThat(address).startsWith(DhcpLab.SUBNET + ".").endsWith("/24");
        assertThat(result.path("ips").get(0).path("gateway").asText()).isEqualTo(DhcpLab.SERVER);
        String mac = container.kernel().link("eth0").orElseThrow().mac();
        Dnsmasq.LeaseLine lease = lab.dnsmasq.lease(mac).orElseThrow();
        assertThat(lease.address() + "/24").isEqualTo(address);
        assertThat(lease.clientId()).isEqualTo(DhcpTest.clientId("iop-dhcp", "eth0"));

        assertThat(driver.check(conflist, container.path(), attachment).succeeded()).isTrue();
        assertThat(driver.del(conflist, container.path(), attachment).succeeded()).isTrue();
        assertThat(lab.dnsmasq.await(List::isEmpty, Duration.ofSeconds(5))).isEmpty();
        assertThat(lab.stateFiles()).isEmpty();
        assertThat(driver.del(conflist, container.path(), attachment).succeeded()).as("DEL twice").isTrue();
    }

    @Test
    void theSameKindOfResultAndLeaseAsGosDhcpDaemonAndPlugin() throws Exception {
        Prerequisites.assumeReferencePlugins("dhcp", "bridge");
        Path goSocket = tmp.resolve("go-dhcp.sock");
        try (DhcpDaemonProcess goDaemon = DhcpDaemonProcess.start(lab.host.netns(), Locations.referencePlugin("dhcp"),
                goSocket, tmp.resolve("go-daemon.log"), List.of(), false)) {
            compareWithGo(goSocket);
        }
    }

    private void compareWithGo(Path goSocket) {
        CniExec goBridge = CniExec.of(Locations.referencePlugin("bridge"), List.of(Locations.referencePlugins()))
                .inNetns(lab.host.name());
        String goConf = lab.bridgeConf("1.0.0", "").replace(lab.socket.toString(), goSocket.toString());
        String ourConf = lab.bridgeConf("1.0.0", "");
        TestNetns ours = lab.container();
        TestNetns theirs = lab.container();

        JsonNode ourResult = lab.jcni("bridge").add(ourConf, ours.path(), "ctr-ours", "eth0").result();
        JsonNode goResult = goBridge.add(goConf, theirs.path(), "ctr-go", "eth0").result();

        assertThat(normalized(ourResult, ours)).isEqualTo(normalized(goResult, theirs));
        assertThat(goResult.path("dns").path("nameservers").isMissingNode()).as("Go's result has no DNS servers")
                .isTrue();
        assertThat(ourResult.path("dns").path("nameservers").get(0).asText()).isEqualTo(DhcpLab.DNS);
        String ourMac = ours.kernel().link("eth0").orElseThrow().mac();
        String goMac = theirs.kernel().link("eth0").orElseThrow().mac();
        assertThat(lab.dnsmasq.lease(ourMac).orElseThrow().clientId()).isEqualTo(DhcpTest.clientId("ctr-ours",
                "eth0"));
        assertThat(lab.dnsmasq.lease(goMac).orElseThrow().clientId()).as("Go's client identifier, the same form")
                .isEqualTo(DhcpTest.clientId("ctr-go", "eth0"));

        assertThat(lab.jcni("bridge").del(ourConf, ours.path(), "ctr-ours", "eth0").succeeded()).isTrue();
        assertThat(goBridge.del(goConf, theirs.path(), "ctr-go", "eth0").succeeded()).isTrue();
        assertThat(lab.dnsmasq.await(leases -> leases.stream().noneMatch(l -> l.mac().equals(ourMac)),
                Duration.ofSeconds(5))).extracting(Dnsmasq.LeaseLine::mac).doesNotContain(ourMac)
                .as("Go's bridge deletes the interface before Go's dhcp can release on it: that lease runs out")
                .contains(goMac);
        assertThat(lab.dnsmasq.log()).contains("DHCPRELEASE(br0) " + lab.dnsmasq.log().lines()
                .filter(l -> l.contains("DHCPACK(br0)") && l.contains(ourMac)).findFirst().orElseThrow()
                .replaceAll(".*DHCPACK\\(br0\\) (\\S+) .*", "$1"));
    }

    /** A bridge result with what differs between two containers replaced: names, MACs, paths, the address. */
    private static String normalized(JsonNode result, TestNetns container) {
        String address = result.path("ips").get(0).path("address").asText();
        String text = result.toString().replace(address, "ADDRESS/24").replace(container.path().toString(), "NETNS")
                .replaceAll("\"mac\":\"[0-9a-f:]+\"", "\"mac\":\"MAC\"")
                .replaceAll("\"name\":\"veth[0-9a-f]+\"", "\"name\":\"VETH\"");
        return text.replaceAll(",\"dns\":\\{[^}]*\\}", "");
    }
}
