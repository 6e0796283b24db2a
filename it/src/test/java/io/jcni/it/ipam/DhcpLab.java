package io.jcni.it.ipam;

import io.jcni.it.support.CniExec;
import io.jcni.it.support.Locations;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The world of a dhcp test: a test host with a bridge {@code br0} ({@value #SERVER}/24, up) on which dnsmasq
 * serves {@value #SUBNET}.10-50, a dhcp daemon in that host with its socket and state directory in the test's
 * directory, and containers attached to the bridge by jcni's bridge plugin with {@code ipam: {type: dhcp}}. Closing
 * stops the daemon and dnsmasq, then deletes the containers and the host.
 */
final class DhcpLab implements AutoCloseable {
    static final String SUBNET = "10.201.0";
    static final String SERVER = SUBNET + ".1";
    static final String DNS = SUBNET + ".53";
    static final String NETWORK = "jcni-dhcp-net";

    final TestHost host;
    final Path dir;
    final Path socket;
    final Path stateDir;
    Dnsmasq dnsmasq;
    DhcpDaemonProcess daemon;

    private DhcpLab(TestHost host, Path dir) {
        this.host = host;
        this.dir = dir;
        this.socket = dir.resolve("dhcp.sock");
        this.stateDir = dir.resolve("dhcp-state");
    }

    /** The host and its bridge; no server, no daemon yet. */
    static DhcpLab create(String tag, Path dir) {
        TestHost host = TestHost.create(tag);
        try {
            host.exec("ip", "link", "add", "br0", "type", "bridge").requireSuccess();
            host.exec("ip", "addr", "add", SERVER + "/24", "dev", "br0").requireSuccess();
            host.exec("ip", "link", "set", "br0", "up").requireSuccess();
            return new DhcpLab(host, dir);
        } catch (RuntimeException | Error e) {
            host.close();
            throw e;
        }
    }

    /** dnsmasq on br0 with a 2-minute lease (its minimum), DNS server, domain and search list, and {@code options}. */
    Dnsmasq startDnsmasq(String... options) {
        List<String> all = new ArrayList<>(List.of("--dhcp-option=option:dns-server," + DNS,
                "--dhcp-option=option:domain-name,jcni.test", "--dhcp-option=option:domain-search,a.jcni.test,"
                        + "b.jcni.test"));
        all.addAll(List.of(options));
        dnsmasq = Dnsmasq.start(host.netns(), dir.resolve("dnsmasq"), "br0", SUBNET + ".10", SUBNET + ".50", "2m",
                all);
        return dnsmasq;
    }

    /** jcni's daemon in the host, with the lab's socket and state directory and {@code flags}. */
    DhcpDaemonProcess startDaemon(String... flags) {
        List<String> all = new ArrayList<>(List.of("-statedir", stateDir.toString()));
        all.addAll(List.of(flags));
        daemon = DhcpDaemonProcess.start(host.netns(), Locations.distPlugin("dhcp"), socket,
                dir.resolve("daemon.log"), all, true);
        return daemon;
    }

    TestNetns container() {
        return host.container();
    }

    /** jcni's {@code type} plugin run in the host, jcni's plugins then Go's in CNI_PATH. */
    CniExec jcni(String type) {
        return CniExec.of(Locations.distPlugin(type), List.of(Locations.distCniBin(), Locations.referencePlugins()))
                .inNetns(host.name());
    }

    /** A bridge network on br0 (no gateway address of its own: dnsmasq's host has it) with dhcp IPAM. */
    String bridgeConf(String cniVersion, String ipamExtra) {
        return "{\"cniVersion\":\"" + cniVersion + "\",\"name\":\"" + NETWORK + "\",\"type\":\"bridge\","
                + "\"bridge\":\"br0\",\"ipam\":{\"type\":\"dhcp\",\"daemonSocketPath\":\"" + socket + "\"" + ipamExtra
                + "}}";
    }

    /** The lease files in the daemon's state directory. */
    List<String> stateFiles() {
        if (!Files.isDirectory(stateDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(stateDir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            if (daemon != null) {
                daemon.close();
            }
        } finally {
            try {
                if (dnsmasq != null) {
                    dnsmasq.close();
                }
            } finally {
                host.close();
            }
        }
    }
}
