package io.jcni.it.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpRoute;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jcni's dhcp IPAM plugin and daemon against a real DHCP server: Debian's dnsmasq on the bridge of a test host
 * ({@link DhcpLab}), containers attached by jcni's bridge plugin (and once by macvlan, the server behind its master).
 * What dnsmasq's lease file says is the evidence: a lease appears with the container's MAC, our client identifier and
 * the hostname from CNI_ARGS; its expiry moves when the daemon renews (dnsmasq's lease time is at least two minutes,
 * so the tests set T1 to 3 s with option 58); it disappears on DEL (DHCPRELEASE), also after the daemon was killed with
 * SIGKILL and started again, and when the ADD failed after the lease was granted; GC releases the leases of
 * attachments not in the valid set. A server that never answers makes ADD fail with code 11 within the daemon's
 * resend timeout and leaves nothing: no lease file, no interface, no lease at any server. A server that refuses a
 * renewal (DHCPNAK) ends the lease. The end of a lease nobody renews is {@link DhcpExpiryTest}'s.
 */
class DhcpTest {
    @TempDir
    Path tmp;

    @AutoClose
    DhcpLab lab;

    @BeforeEach
    void lab() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("dhcp", "bridge");
        Prerequisites.assumeCommand("dnsmasq");
        lab = DhcpLab.create("dhcp", tmp);
    }

    /** dnsmasq's spelling of Go's client identifier: type 0, then {@code <container>/<network>/<ifname>}. */
    static String clientId(String containerId, String ifName) {
        byte[] text = (containerId + "/" + DhcpLab.NETWORK + "/" + ifName).getBytes(StandardCharsets.UTF_8);
        return "00:" + HexFormat.ofDelimiter(":").formatHex(text);
    }

    static String mac(TestNetns container, String ifName) {
        return container.kernel().link(ifName).orElseThrow().mac();
    }

    @Test
    void addGetsALeaseTheDaemonRenewsAndDelReleases() throws Exception {
        lab.startDnsmasq("--dhcp-option=option:T1,3", "--dhcp-option=option:T2,100");
        lab.startDaemon();
        TestNetns container = lab.container();
        String conf = lab.bridgeConf("1.1.0", ",\"provide\":[{\"option\":\"host-name\",\"fromArg\":\"K8S_POD_NAME\"}]");

        CniExec.Outcome add = lab.jcni("bridge").call("ADD", conf, container.path(), "ctr-a", "eth0",
                "IgnoreUnknown=1;K8S_POD_NAME=pod-a");
        JsonNode result = add.result();
        String address = result.path("ips").get(0).path("address").asText();
        assertThat(address).startsWith(DhcpLab.SUBNET + ".").endsWith("/24");
        assertThat(result.path("ips").get(0).path("gateway").asText()).isEqualTo(DhcpLab.SERVER);
        assertThat(result.path("routes").toString()).isEqualTo("[{\"dst\":\"0.0.0.0/0\",\"gw\":\"" + DhcpLab.SERVER
                + "\"}]");
        assertThat(result.path("dns").toString()).isEqualTo("{\"nameservers\":[\"" + DhcpLab.DNS + "\"],"
                + "\"domain\":\"jcni.test\",\"search\":[\"a.jcni.test\",\"b.jcni.test\"]}");

        // The container has the address; dnsmasq has the lease, for this MAC, client identifier and hostname.
        String ip = address.substring(0, address.indexOf('/'));
        assertThat(container.kernel().addresses("eth0")).extracting(IpAddress::cidr).contains(address);
        assertThat(container.kernel().routes("eth0")).extracting(IpRoute::dst).contains("default");
        String mac = mac(container, "eth0");
        Dnsmasq.LeaseLine lease = lab.dnsmasq.lease(mac).orElseThrow();
        assertThat(lease.address()).isEqualTo(ip);
        assertThat(lease.hostname()).isEqualTo("pod-a");
        assertThat(lease.clientId()).isEqualTo(clientId("ctr-a", "eth0"));
        assertThat(lab.stateFiles()).containsExactly(DhcpLab.NETWORK + "-ctr-a-eth0.json");

        // Renewal at T1: dnsmasq records a later expiry for the same address.
        List<Dnsmasq.LeaseLine> renewed = lab.dnsmasq.await(leases -> leases.size() == 1
                && leases.get(0).expiry() > lease.expiry(), Duration.ofSeconds(20));
        assertThat(renewed).as("dnsmasq's lease file after T1; daemon log:\n%s", lab.daemon.log()).hasSize(1);
        assertThat(renewed.get(0).expiry()).isGreaterThan(lease.expiry());
        assertThat(renewed.get(0).address()).isEqualTo(ip);
        assertThat(lab.daemon.awaitLog("ctr-a/" + DhcpLab.NETWORK + "/eth0: lease renewed", Duration.ofSeconds(5)))
                .contains("ctr-a/" + DhcpLab.NETWORK + "/eth0: lease renewed");

        String withPrev = conf.substring(0, conf.length() - 1) + ",\"prevResult\":" + result + "}";
        CniExec.Outcome check = lab.jcni("bridge").check(withPrev, container.path(), "ctr-a", "eth0");
        assertThat(check.succeeded()).as(check.process().describe()).isTrue();

        CniExec.Outcome del = lab.jcni("bridge").del(conf, container.path(), "ctr-a", "eth0");
        assertThat(del.succeeded()).as(del.process().describe()).isTrue();
        assertThat(lab.dnsmasq.await(List::isEmpty, Duration.ofSeconds(5))).as("DHCPRELEASE empties the lease file")
                .isEmpty();
        assertThat(lab.dnsmasq.log()).contains("DHCPRELEASE(br0) " + ip + " " + mac);
        assertThat(lab.stateFiles()).isEmpty();
        assertThat(container.kernel().link("eth0")).isEmpty();
        CniExec.Outcome again = lab.jcni("bridge").del(conf, container.path(), "ctr-a", "eth0");
        assertThat(again.succeeded()).as("DEL twice: " + again.process().describe()).isTrue();
        CniExec.Outcome checkGone = lab.jcni("dhcp").check(conf, container.path(), "ctr-a", "eth0");
        assertThat(checkGone.code()).isEqualTo(100);
        assertThat(checkGone.msg()).isEqualTo("dhcp: no lease for ctr-a/" + DhcpLab.NETWORK + "/eth0");
    }

    @Test
    void aServerThatNeverAnswersIsCode11WithinTheResendTimeoutAndLeavesNothing() {
        lab.startDaemon("-timeout", "1s", "-resendtimeout", "4s");
        TestNetns container = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        long start = System.nanoTime();
        CniExec.Outcome add = lab.jcni("bridge").add(conf, container.path(), "ctr-b", "eth0");
        long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
        assertThat(add.code()).as(add.process().describe()).isEqualTo(11);
        assertThat(add.msg()).startsWith("no DHCP lease on eth0 within ")
                .endsWith(" s: no DHCPOFFER on eth0 from any server");
        assertThat(seconds).as("bounded by -resendtimeout 4s, plus the plugins' start").isLessThan(15);
        assertThat(lab.stateFiles()).isEmpty();
        assertThat(container.kernel().link("eth0")).as("the bridge plugin rolled its veth back").isEmpty();
        assertThat(lab.daemon.log()).contains("ctr-b/" + DhcpLab.NETWORK + "/eth0: acquiring lease");
        CniExec.Outcome status = lab.jcni("dhcp").call("STATUS", lab.bridgeConf("1.1.0", ""), null, "", "");
        assertThat(status.succeeded()).as("the daemon still serves: " + status.process().describe()).isTrue();
    }

    @Test
    void aStoppedServerFailsAddClearlyAndDelStillLetsGoOfTheLease() {
        lab.startDnsmasq();
        // dnsmasq pings an address before it offers it (up to ~3 s): the exchange timeout leaves room for that, and
        // for a loaded machine (5 s was seen to fail the first, answered ADD with several builds running).
        lab.startDaemon("-timeout", "10s", "-resendtimeout", "12s");
        TestNetns first = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        lab.jcni("bridge").add(conf, first.path(), "ctr-c", "eth0").result();
        assertThat(lab.dnsmasq.leases()).hasSize(1);

        lab.dnsmasq.close();
        TestNetns second = lab.container();
        CniExec.Outcome add = lab.jcni("bridge").add(conf, second.path(), "ctr-d", "eth0");
        assertThat(add.code()).isEqualTo(11);
        assertThat(add.msg()).contains("no DHCPOFFER on eth0 from any server");
        assertThat(lab.stateFiles()).containsExactly(DhcpLab.NETWORK + "-ctr-c-eth0.json");

        // DEL with the server gone: the release goes out unanswered (DHCPRELEASE has no answer), the lease is off
        // the daemon's books, the interface is gone.
        CniExec.Outcome del = lab.jcni("bridge").del(conf, first.path(), "ctr-c", "eth0");
        assertThat(del.succeeded()).as(del.process().describe()).isTrue();
        assertThat(lab.stateFiles()).isEmpty();
        assertThat(first.kernel().link("eth0")).isEmpty();
        assertThat(lab.daemon.log()).contains("ctr-c/" + DhcpLab.NETWORK + "/eth0: releasing lease of ");
    }

    @Test
    void aDaemonKilledAndStartedAgainResumesItsLeasesAndDelReleasesAtTheServer() {
        lab.startDnsmasq("--dhcp-option=option:T1,3", "--dhcp-option=option:T2,100");
        lab.startDaemon();
        TestNetns container = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        String address = lab.jcni("bridge").add(conf, container.path(), "ctr-e", "eth0").result().path("ips").get(0)
                .path("address").asText();
        String mac = mac(container, "eth0");

        lab.daemon.kill();
        assertThat(lab.daemon.isRunning()).isFalse();
        assertThat(lab.stateFiles()).containsExactly(DhcpLab.NETWORK + "-ctr-e-eth0.json");
        long before = lab.dnsmasq.lease(mac).orElseThrow().expiry();
        lab.startDaemon();
        assertThat(lab.daemon.log()).contains("ctr-e/" + DhcpLab.NETWORK + "/eth0: resumed lease of "
                + address.substring(0, address.indexOf('/')));
        // The restarted daemon renews (T1 is past or near): the server sees the lease kept alive.
        assertThat(lab.dnsmasq.await(leases -> leases.size() == 1 && leases.get(0).expiry() > before,
                Duration.ofSeconds(20))).as(lab.daemon.log()).hasSize(1);

        CniExec.Outcome del = lab.jcni("bridge").del(conf, container.path(), "ctr-e", "eth0");
        assertThat(del.succeeded()).as(del.process().describe()).isTrue();
        assertThat(lab.dnsmasq.await(List::isEmpty, Duration.ofSeconds(5))).isEmpty();
        assertThat(lab.stateFiles()).isEmpty();
    }

    @Test
    void gcReleasesTheLeasesOfAttachmentsNotInTheValidSet() {
        lab.startDnsmasq();
        lab.startDaemon();
        TestNetns one = lab.container();
        TestNetns two = lab.container();
        String conf = lab.bridgeConf("1.1.0", "");
        lab.jcni("bridge").add(conf, one.path(), "ctr-keep", "eth0").result();
        lab.jcni("bridge").add(conf, two.path(), "ctr-gone", "eth0").result();
        assertThat(lab.dnsmasq.leases()).hasSize(2);
        String keepMac = mac(one, "eth0");

        String gc = conf.substring(0, conf.length() - 1)
                + ",\"cni.dev/valid-attachments\":[{\"containerID\":\"ctr-keep\",\"ifname\":\"eth0\"}]}";
        CniExec.Outcome outcome = lab.jcni("bridge").call("GC", gc, null, "", "");
        assertThat(outcome.succeeded()).as(outcome.process().describe()).isTrue();
        assertThat(lab.dnsmasq.await(leases -> leases.size() == 1, Duration.ofSeconds(5)))
                .extracting(Dnsmasq.LeaseLine::mac).containsExactly(keepMac);
        assertThat(lab.stateFiles()).containsExactly(DhcpLab.NETWORK + "-ctr-keep-eth0.json");

        CniExec.Outcome noList = lab.jcni("dhcp").call("GC", conf, null, "", "");
        assertThat(noList.code()).as("GC without the valid set releases nothing").isEqualTo(7);
        assertThat(lab.dnsmasq.leases()).hasSize(1);
    }

    @Test
    void classlessStaticRoutesReplaceTheRouterAndCarryThePriority() {
        // RFC 3442: with option 121 the routers option does not make routes; a router 0.0.0.0 is on-link.
        lab.startDnsmasq("--dhcp-option=option:classless-static-route,10.99.0.0/16," + DhcpLab.SUBNET + ".254,"
                + "0.0.0.0/0," + DhcpLab.SERVER + ",10.98.0.0/16,0.0.0.0");
        lab.startDaemon();
        TestNetns container = lab.container();
        String conf = lab.bridgeConf("1.1.0", ",\"priority\":50");
        JsonNode result = lab.jcni("bridge").add(conf, container.path(), "ctr-r", "eth0").result();
        assertThat(result.path("routes").toString()).isEqualTo("[{\"dst\":\"10.99.0.0/16\",\"gw\":\""
                + DhcpLab.SUBNET + ".254\",\"priority\":50},{\"dst\":\"0.0.0.0/0\",\"gw\":\"" + DhcpLab.SERVER
                + "\",\"priority\":50},{\"dst\":\"10.98.0.0/16\",\"gw\":\"0.0.0.0\",\"priority\":50,\"scope\":253}]");
        List<IpRoute> routes = container.kernel().routes("eth0");
        assertThat(routes).extracting(r -> r.dst() + " via " + r.gateway() + " scope " + r.scope())
                .contains("10.99.0.0/16 via " + DhcpLab.SUBNET + ".254 scope null", "default via "
                        + DhcpLab.SERVER + " scope null", "10.98.0.0/16 via null scope link");
        assertThat(lab.jcni("bridge").del(conf, container.path(), "ctr-r", "eth0").succeeded()).isTrue();
    }

    @Test
    void macvlanGetsALeaseFromAServerBehindItsMaster() {
        // The master is the host's end of a veth whose other end, in a peer namespace, has the server.
        TestNetns peer = lab.container();
        lab.host.exec("ip", "link", "add", "mst0", "type", "veth", "peer", "name", "peer0", "netns", peer.name())
                .requireSuccess();
        lab.host.exec("ip", "link", "set", "mst0", "up").requireSuccess();
        peer.exec("ip", "link", "set", "peer0", "up").requireSuccess();
        peer.exec("ip", "addr", "add", "10.202.0.1/24", "dev", "peer0").requireSuccess();
        try (Dnsmasq server = Dnsmasq.start(peer, tmp.resolve("peer-dnsmasq"), "peer0", "10.202.0.10",
                "10.202.0.20", "2m", List.of())) {
            lab.startDaemon();
            TestNetns container = lab.container();
            String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + DhcpLab.NETWORK + "\",\"type\":\"macvlan\","
                    + "\"master\":\"mst0\",\"mode\":\"bridge\",\"ipam\":{\"type\":\"dhcp\",\"daemonSocketPath\":\""
                    + lab.socket + "\"}}";
            JsonNode result = lab.jcni("macvlan").add(conf, container.path(), "ctr-mv", "net1").result();
            String address = result.path("ips").get(0).path("address").asText();
            assertThat(address).startsWith("10.202.0.").endsWith("/24");
            assertThat(result.path("ips").get(0).path("gateway").asText()).isEqualTo("10.202.0.1");
            String mac = mac(container, "net1");
            assertThat(result.path("interfaces").get(0).path("mac").asText()).isEqualTo(mac);
            assertThat(server.lease(mac).orElseThrow().address() + "/24").isEqualTo(address);
            assertThat(container.kernel().addresses("net1")).extracting(IpAddress::cidr).contains(address);

            CniExec.Outcome del = lab.jcni("macvlan").del(conf, container.path(), "ctr-mv", "net1");
            assertThat(del.succeeded()).as(del.process().describe()).isTrue();
            assertThat(server.await(List::isEmpty, Duration.ofSeconds(5))).as("released before the link went")
                    .isEmpty();
            assertThat(container.kernel().link("net1")).isEmpty();
            assertThat(lab.stateFiles()).isEmpty();
        }
    }

    @Test
    void anAddThatFailsAfterTheLeaseWasGrantedReleasesIt() {
        // The server's option 121 names a router the container cannot reach: the bridge plugin's route fails after
        // IPAM answered, and its rollback's IPAM DEL releases the lease.
        lab.startDnsmasq("--dhcp-option=option:classless-static-route,10.99.0.0/16,192.0.2.1");
        lab.startDaemon();
        TestNetns container = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        CniExec.Outcome add = lab.jcni("bridge").add(conf, container.path(), "ctr-f", "eth0");
        assertThat(add.succeeded()).isFalse();
        assertThat(add.msg()).startsWith("failed to add route '10.99.0.0/16 via 192.0.2.1 dev eth0'");
        assertThat(lab.dnsmasq.log()).contains("DHCPACK(br0)");
        assertThat(lab.dnsmasq.await(List::isEmpty, Duration.ofSeconds(5))).as("released by the rollback").isEmpty();
        assertThat(lab.dnsmasq.log()).contains("DHCPRELEASE(br0)");
        assertThat(lab.stateFiles()).isEmpty();
        assertThat(container.kernel().link("eth0")).isEmpty();
    }

    @Test
    void aRenewalTheServerRefusesEndsTheLeaseUnlessTheSameAddressComesBack() throws Exception {
        lab.startDnsmasq("--dhcp-option=option:T1,3", "--dhcp-option=option:T2,100");
        lab.startDaemon();
        TestNetns container = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        String address = lab.jcni("bridge").add(conf, container.path(), "ctr-n", "eth0").result().path("ips").get(0)
                .path("address").asText();
        String ip = address.substring(0, address.indexOf('/'));

        // A server that does not know the lease and serves another range: it answers the renewal with DHCPNAK.
        lab.dnsmasq.close();
        Dnsmasq other = Dnsmasq.start(lab.host.netns(), tmp.resolve("other-dnsmasq"), "br0", DhcpLab.SUBNET + ".100",
                DhcpLab.SUBNET + ".150", "2m", List.of("--dhcp-authoritative"));
        try {
            String log = lab.daemon.awaitLog("expired, bringing interface eth0 DOWN", Duration.ofSeconds(20));
            assertThat(log).contains("ctr-n/" + DhcpLab.NETWORK + "/eth0: the server refused the renewal of " + ip
                    + " (DHCPNAK", "ctr-n/" + DhcpLab.NETWORK + "/eth0: the server offers " + DhcpLab.SUBNET + ".1",
                    " instead of " + ip + "; releasing it",
                    "lease of " + ip + " expired, bringing interface eth0 DOWN");
            assertThat(other.log()).contains("DHCPNAK(br0) " + ip);
            assertThat(other.await(List::isEmpty, Duration.ofSeconds(5))).as("the other address was released")
                    .isEmpty();
            assertThat(container.kernel().link("eth0").orElseThrow().up()).isFalse();
            CniExec.Outcome del = lab.jcni("bridge").del(conf, container.path(), "ctr-n", "eth0");
            assertThat(del.succeeded()).as(del.process().describe()).isTrue();
            assertThat(lab.stateFiles()).isEmpty();
        } finally {
            other.close();
        }
    }

    @Test
    void aPluginThatGoesAwayBeforeTheAnswerHasItsLeaseReleased() throws Exception {
        lab.startDnsmasq();
        lab.startDaemon();
        TestNetns container = lab.container();
        lab.host.exec("ip", "link", "add", "vgone", "type", "veth", "peer", "name", "eth0", "netns", container.name())
                .requireSuccess();
        lab.host.exec("ip", "link", "set", "vgone", "master", "br0", "up").requireSuccess();
        // The request a plugin sends (DaemonProtocol), then the connection closed at once: nobody reads the answer.
        byte[] request = ("{\"jcniDhcp\":1,\"command\":\"ADD\",\"network\":\"" + DhcpLab.NETWORK + "\","
                + "\"containerId\":\"ctr-gone\",\"netns\":\"" + container.path() + "\",\"ifName\":\"eth0\","
                + "\"args\":\"\",\"ipam\":{\"type\":\"dhcp\"}}").getBytes(StandardCharsets.UTF_8);
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(lab.socket))) {
            client.write(ByteBuffer.allocate(4 + request.length).putInt(request.length).put(request).flip());
        }
        String log = lab.daemon.awaitLog("the plugin went away before the answer, releasing the lease",
                Duration.ofSeconds(20));
        assertThat(log).contains("ctr-gone/" + DhcpLab.NETWORK + "/eth0: lease of ", "ctr-gone/" + DhcpLab.NETWORK
                + "/eth0: the plugin went away before the answer, releasing the lease");
        assertThat(lab.dnsmasq.await(List::isEmpty, Duration.ofSeconds(5))).isEmpty();
        assertThat(lab.dnsmasq.log()).contains("DHCPACK(br0)", "DHCPRELEASE(br0)");
        // The daemon removes the lease file right after sending the release: wait for it, not for the server.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!lab.stateFiles().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lab.stateFiles()).isEmpty();
    }

    @Test
    void aDelWhoseReleaseFailsKeepsTheInterfaceWithoutAddressesAndTheRetryReleases() {
        lab.startDnsmasq();
        lab.startDaemon();
        TestNetns container = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        lab.jcni("bridge").add(conf, container.path(), "ctr-r2", "eth0").result();
        String mac = mac(container, "eth0");

        lab.daemon.close(); // stopped: its lease stays on disk and at the server
        CniExec.Outcome del = lab.jcni("bridge").del(conf, container.path(), "ctr-r2", "eth0");
        assertThat(del.code()).as(del.process().describe()).isEqualTo(11);
        assertThat(del.msg()).startsWith("error dialing DHCP daemon at ");
        assertThat(container.kernel().link("eth0")).as("kept for the retry").isPresent();
        assertThat(container.kernel().addresses("eth0")).as("but no address is in use any more")
                .noneMatch(a -> a.family().equals("inet"));
        assertThat(lab.dnsmasq.lease(mac)).isPresent();

        lab.startDaemon();
        CniExec.Outcome retry = lab.jcni("bridge").del(conf, container.path(), "ctr-r2", "eth0");
        assertThat(retry.succeeded()).as(retry.process().describe()).isTrue();
        assertThat(lab.dnsmasq.await(List::isEmpty, Duration.ofSeconds(5))).isEmpty();
        assertThat(container.kernel().link("eth0")).isEmpty();
        assertThat(lab.stateFiles()).isEmpty();
    }
}
