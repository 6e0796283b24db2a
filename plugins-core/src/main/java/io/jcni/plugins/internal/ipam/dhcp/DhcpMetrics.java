package io.jcni.plugins.internal.ipam.dhcp;

import static io.jcni.plugins.internal.pkg.metrics.PromText.gauge;
import static io.jcni.plugins.internal.pkg.metrics.PromText.header;
import static io.jcni.plugins.internal.pkg.metrics.PromText.sample;

import io.jcni.plugins.internal.pkg.metrics.Exposition;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;

/**
 * The lease daemon's figures ({@code dhcp daemon -metrics-address}), in Prometheus' text format: the leases a
 * {@link LeaseManager} holds now, and counters of its DHCP exchanges since the daemon started.
 *
 * <p>Counted always, one {@link LongAdder} increment per exchange (seconds apart, never on a hot path); rendered only
 * when a listener asks. What counts: an acquisition is a lease obtained with a DHCPDISCOVER exchange (an ADD's, or a
 * lease asked for again after a DHCPNAK); a renewal or rebind one that ended with a DHCPACK; a release a DHCPRELEASE
 * sent. A failure is an exchange that did not end so, by operation: an ADD that got no lease within the resend
 * timeout (or whose link failed), a renewal or rebinding try that timed out or was refused (each try counts), a
 * release that could not be sent. Exchanges given up because the daemon stops or the lease was deleted do not count.
 */
final class DhcpMetrics implements Exposition {
    /** The {@code operation} label values of {@code jcni_dhcp_failures_total}. */
    enum Operation {
        ACQUIRE("acquire"), RENEW("renew"), REBIND("rebind"), RELEASE("release");

        final String label;

        Operation(String label) {
            this.label = label;
        }
    }

    private final LeaseManager manager;
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder renewals = new LongAdder();
    private final LongAdder rebinds = new LongAdder();
    private final LongAdder releases = new LongAdder();
    private final LongAdder[] failures = new LongAdder[Operation.values().length];

    DhcpMetrics(LeaseManager manager) {
        this.manager = manager;
        for (int i = 0; i < failures.length; i++) {
            failures[i] = new LongAdder();
        }
    }

    void acquired() {
        acquisitions.increment();
    }

    /** A renewal ({@code rebinding} false) or rebinding exchange got its DHCPACK. */
    void renewed(boolean rebinding) {
        (rebinding ? rebinds : renewals).increment();
    }

    void released() {
        releases.increment();
    }

    void failed(Operation operation) {
        failures[operation.ordinal()].increment();
    }

    @Override
    public byte[] render() {
        StringBuilder out = new StringBuilder(2048);
        gauge(out, "jcni_dhcp_leases_held", "Leases the daemon holds and keeps renewing.",
                manager.leaseCount(ManagedLease.State.BOUND));
        gauge(out, "jcni_dhcp_leases_expired", "Leases that ended unrenewed (their link set down), kept until DEL.",
                manager.leaseCount(ManagedLease.State.EXPIRED));
        counter(out, "jcni_dhcp_acquisitions_total",
                "Leases obtained with a DHCPDISCOVER exchange (ADD, or asked for again after a DHCPNAK).",
                acquisitions);
        counter(out, "jcni_dhcp_renewals_total", "Leases renewed at their server (from T1).", renewals);
        counter(out, "jcni_dhcp_rebinds_total", "Leases rebound by broadcast (from T2).", rebinds);
        counter(out, "jcni_dhcp_releases_total", "DHCPRELEASEs sent (DEL, GC, an ADD undone).", releases);
        header(out, "jcni_dhcp_failures_total", "counter",
                "DHCP exchanges that failed, by operation (acquire: an ADD without a lease; renew, rebind: each try).");
        for (Operation operation : Operation.values()) {
            sample(out, "jcni_dhcp_failures_total", "operation", operation.label,
                    failures[operation.ordinal()].sum());
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void counter(StringBuilder out, String name, String help, LongAdder value) {
        header(out, name, "counter", help);
        out.append(name).append(' ').append(value.sum()).append('\n');
    }
}
