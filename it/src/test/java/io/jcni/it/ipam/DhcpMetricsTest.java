package io.jcni.it.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.CniExec;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.TestNetns;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dhcp daemon -metrics-address} against a real DHCP server (dnsmasq on the lab's bridge, {@link DhcpLab}):
 * the daemon listens on loopback in the test host, curl scrapes it there over HTTP, and every one of the daemon's
 * series has exactly the value the exchanges so far give: one lease acquired and held; an ADD that finds no server
 * counted as an acquisition failure while the first lease stays held; DEL's DHCPRELEASE counted and the lease gone.
 * dnsmasq's lease time is 2 minutes (T1 at 1 minute), so no renewal falls in the test and renewals stay 0.
 */
class DhcpMetricsTest {
    private static final String ADDRESS = "127.0.0.1:9465";

    @TempDir
    Path tmp;

    @AutoClose
    DhcpLab lab;

    @BeforeEach
    void lab() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("dhcp", "bridge");
        Prerequisites.assumeCommand("dnsmasq");
        Prerequisites.assumeCommand("curl");
        lab = DhcpLab.create("dhcpmet", tmp);
    }

    @Test
    void theDaemonExportsItsLeasesAndExchangesInPrometheusTextFormat() {
        lab.startDnsmasq();
        // dnsmasq pings an address before it offers it (up to ~3 s): the exchange timeout leaves room for that.
        lab.startDaemon("-metrics-address", ADDRESS, "-timeout", "10s", "-resendtimeout", "12s");
        assertThat(lab.daemon.log()).contains("dhcp daemon metrics at " + ADDRESS + " (GET /metrics)");
        assertThat(scrape()).isEqualTo(expected(0, 0, 0, 0));

        TestNetns first = lab.container();
        String conf = lab.bridgeConf("1.0.0", "");
        lab.jcni("bridge").add(conf, first.path(), "ctr-m1", "eth0").result();
        assertThat(lab.dnsmasq.leases()).hasSize(1);
        assertThat(scrape()).isEqualTo(expected(1, 1, 0, 0));

        lab.dnsmasq.close();
        TestNetns second = lab.container();
        CniExec.Outcome add = lab.jcni("bridge").add(conf, second.path(), "ctr-m2", "eth0");
        assertThat(add.code()).as(add.process().describe()).isEqualTo(11);
        assertThat(scrape()).isEqualTo(expected(1, 1, 0, 1));

        CniExec.Outcome del = lab.jcni("bridge").del(conf, first.path(), "ctr-m1", "eth0");
        assertThat(del.succeeded()).as(del.process().describe()).isTrue();
        assertThat(lab.daemon.log()).contains("ctr-m1/" + DhcpLab.NETWORK + "/eth0: releasing lease of ");
        assertThat(scrape()).isEqualTo(expected(0, 1, 1, 1));
    }

    /** Every series of the daemon, as the exchanges so far should have left them. */
    private static Map<String, String> expected(int held, int acquisitions, int releases, int acquireFailures) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("jcni_dhcp_leases_held", Integer.toString(held));
        m.put("jcni_dhcp_leases_expired", "0");
        m.put("jcni_dhcp_acquisitions_total", Integer.toString(acquisitions));
        m.put("jcni_dhcp_renewals_total", "0");
        m.put("jcni_dhcp_rebinds_total", "0");
        m.put("jcni_dhcp_releases_total", Integer.toString(releases));
        m.put("jcni_dhcp_failures_total{operation=\"acquire\"}", Integer.toString(acquireFailures));
        m.put("jcni_dhcp_failures_total{operation=\"renew\"}", "0");
        m.put("jcni_dhcp_failures_total{operation=\"rebind\"}", "0");
        m.put("jcni_dhcp_failures_total{operation=\"release\"}", "0");
        return m;
    }

    /** {@code GET /metrics} with curl in the test host: the samples, by series (name and labels). */
    private Map<String, String> scrape() {
        ProcessResult curl = lab.host.exec("curl", "-sS", "--fail", "--max-time", "10", "-D", "-",
                "http://" + ADDRESS + "/metrics").requireSuccess();
        String[] parts = curl.stdout().split("\r\n\r\n", 2);
        assertThat(parts[0]).as(curl.describe()).startsWith("HTTP/1.1 200 OK")
                .contains("Content-Type: text/plain; version=0.0.4; charset=utf-8");
        Map<String, String> samples = new LinkedHashMap<>();
        List<String> lines = parts[1].lines().toList();
        for (String line : lines) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), line.substring(space + 1));
        }
        assertThat(lines).contains("# TYPE jcni_dhcp_leases_held gauge", "# TYPE jcni_dhcp_acquisitions_total counter",
                "# TYPE jcni_dhcp_failures_total counter");
        return samples;
    }
}
