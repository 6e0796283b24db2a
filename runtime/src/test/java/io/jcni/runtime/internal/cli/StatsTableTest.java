package io.jcni.runtime.internal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@code jcni stats}' reading of the service's exposition and its percentiles (histogram_quantile's rule). */
class StatsTableTest {
    private static final String EXPOSITION = """
            # HELP jcni_plugin_calls_total x
            # TYPE jcni_plugin_calls_total counter
            jcni_plugin_calls_total{type="bridge",command="ADD"} 100
            jcni_plugin_errors_total{type="bridge",command="ADD",code="7"} 2
            jcni_plugin_errors_total{type="bridge",command="ADD",code="11"} 1
            jcni_plugin_call_duration_seconds_bucket{type="bridge",command="ADD",le="0.001"} 0
            jcni_plugin_call_duration_seconds_bucket{type="bridge",command="ADD",le="0.005"} 50
            jcni_plugin_call_duration_seconds_bucket{type="bridge",command="ADD",le="0.01"} 100
            jcni_plugin_call_duration_seconds_bucket{type="bridge",command="ADD",le="+Inf"} 100
            jcni_service_calls_in_flight 0
            jcni_service_refusals_total{reason="busy"} 4
            jcni_service_refusals_total{reason="malformed"} 0
            jcni_ipam_addresses_allocated{plugin="host-local",network="a \\"b\\"",family="ipv4",data_dir="/d"} 3
            jcni_ipam_addresses_capacity{plugin="host-local",network="a \\"b\\"",family="ipv4",data_dir="/d"} 253
            """;

    @Test
    void aTableOfCallsErrorsAndPercentiles() {
        String table = StatsTable.format(StatsTable.parse(EXPOSITION));
        assertThat(table).contains("TYPE             COMMAND       CALLS   ERRORS        P50        P99")
                .contains("bridge           ADD             100        3    5.00 ms    9.90 ms")
                .contains("calls_in_flight          0")
                .contains("refusals busy            4").doesNotContain("malformed")
                .contains("a \"b\"                            ipv4          3 of 253      /d");
    }

    @Test
    void quantilesInterpolateWithinTheirBucket() {
        TreeMap<Double, Double> b = new TreeMap<>();
        b.put(0.1, 10.0);
        b.put(0.2, 20.0);
        b.put(Double.POSITIVE_INFINITY, 20.0);
        assertThat(StatsTable.quantile(0.5, b)).isEqualTo(0.1);
        assertThat(StatsTable.quantile(0.75, b)).isCloseTo(0.15, org.assertj.core.data.Offset.offset(1e-12));
        b.put(Double.POSITIVE_INFINITY, 40.0);
        assertThat(StatsTable.quantile(0.99, b)).isEqualTo(0.2); // in +Inf: the highest finite bound
        assertThat(StatsTable.quantile(0.5, new TreeMap<>())).isNaN();
    }
}
