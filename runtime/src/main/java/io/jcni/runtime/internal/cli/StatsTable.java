package io.jcni.runtime.internal.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code jcni stats}: the plugin service's figures ({@code jcni serve --metrics-address}) as a table for a terminal,
 * per plugin type and command: calls, errors, and the median and 99th percentile of the call time, estimated from
 * the histogram's buckets as Prometheus' {@code histogram_quantile} does (linear within the bucket the rank falls
 * in), so the figures agree with a dashboard's; then the service's gauges, refusals and IPAM pools.
 *
 * <p>It reads the exposition that the service writes (one known producer), not any Prometheus text: a line is a
 * name, optional {@code {labels}} without nested braces, and a value.
 */
final class StatsTable {
    /** One exposition line. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** The figures of one type and command. */
    private static final class Row {
        double calls;
        double errors;
        final TreeMap<Double, Double> buckets = new TreeMap<>();
    }

    private StatsTable() {
    }

    /** GET /metrics from {@code address}: {@code HOST:PORT} or a Unix socket's absolute path; the body. */
    static String fetch(String address) throws IOException {
        byte[] request = "GET /metrics HTTP/1.1\r\nHost: jcni\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII);
        byte[] response;
        if (address.startsWith("/")) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(address));
                ch.write(ByteBuffer.wrap(request));
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                ByteBuffer b = ByteBuffer.allocate(16384);
                while (ch.read(b) > 0) {
                    all.write(b.array(), 0, b.position());
                    b.clear();
                }
                response = all.toByteArray();
            }
        } else {
            int colon = address.lastIndexOf(':');
            if (colon <= 0) {
                throw new IOException("not HOST:PORT or an absolute socket path: " + address);
            }
            String host = address.substring(0, colon).replace("[", "").replace("]", "");
            int port;
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IOException("not a port number: " + address.substring(colon + 1));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 5000);
                s.setSoTimeout(5000);
                OutputStream out = s.getOutputStream();
                out.write(request);
                out.flush();
                InputStream in = s.getInputStream();
                response = in.readAllBytes();
            }
        }
        String text = new String(response, StandardCharsets.UTF_8);
        if (!text.startsWith("HTTP/1.1 200 ")) {
            int end = text.indexOf("\r\n");
            throw new IOException("the service answered " + (end < 0 ? text : text.substring(0, end)));
        }
        return text.substring(text.indexOf("\r\n\r\n") + 4);
    }

    static List<Sample> parse(String exposition) {
        List<Sample> samples = new ArrayList<>();
        for (String line : exposition.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            double value = Double.parseDouble(line.substring(space + 1));
            Map<String, String> labels = new TreeMap<>();
            int brace = series.indexOf('{');
            String name = brace < 0 ? series : series.substring(0, brace);
            if (brace >= 0) {
                String body = series.substring(brace + 1, series.length() - 1);
                int at = 0;
                while (at < body.length()) {
                    int eq = body.indexOf('=', at);
                    StringBuilder v = new StringBuilder();
                    int i = eq + 2;
                    for (; body.charAt(i) != '"'; i++) {
                        char c = body.charAt(i);
                        if (c == '\\') {
                            char next = body.charAt(++i);
                            v.append(next == 'n' ? '\n' : next);
                        } else {
                            v.append(c);
                        }
                    }
                    labels.put(body.substring(at, eq), v.toString());
                    at = i + 2; // past the quote and the comma
                }
            }
            samples.add(new Sample(name, labels, value));
        }
        return samples;
    }

    /** The table: calls per type and command, then the service's figures. */
    static String format(List<Sample> samples) {
        Map<String, Row> rows = new TreeMap<>();
        StringBuilder service = new StringBuilder();
        StringBuilder pools = new StringBuilder();
        Map<String, Double> capacity = new TreeMap<>();
        for (Sample s : samples) {
            String key = s.labels().get("type") + "\t" + s.labels().get("command");
            switch (s.name()) {
                case "jcni_plugin_calls_total" -> rows.computeIfAbsent(key, k -> new Row()).calls = s.value();
                case "jcni_plugin_errors_total" -> rows.computeIfAbsent(key, k -> new Row()).errors += s.value();
                case "jcni_plugin_call_duration_seconds_bucket" -> {
                    String le = s.labels().get("le");
                    rows.computeIfAbsent(key, k -> new Row()).buckets.put(
                            le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le), s.value());
                }
                case "jcni_service_calls_in_flight", "jcni_service_queue_depth", "jcni_service_calls_hung" ->
                        service.append(String.format(Locale.ROOT, "%-24s %d%n", s.name().substring(13),
                                (long) s.value()));
                case "jcni_service_refusals_total", "jcni_service_launcher_fallbacks_total",
                        "jcni_service_calls_cancelled_total" -> {
                    if (s.value() > 0) {
                        service.append(String.format(Locale.ROOT, "%-24s %d%n", s.name().substring(13,
                                s.name().length() - 6) + " " + s.labels().get("reason"), (long) s.value()));
                    }
                }
                case "jcni_ipam_addresses_capacity" -> capacity.put(poolKey(s), s.value());
                default -> {
                }
            }
        }
        for (Sample s : samples) {
            if (s.name().equals("jcni_ipam_addresses_allocated")) {
                Double cap = capacity.get(poolKey(s));
                pools.append(String.format(Locale.ROOT, "%-32s %-6s %8d of %-8d %s%n", s.labels().get("network"),
                        s.labels().get("family"), (long) s.value(), cap == null ? 0 : cap.longValue(),
                        store(s)));
            }
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-16s %-8s %10s %8s %10s %10s%n", "TYPE", "COMMAND", "CALLS", "ERRORS",
                "P50", "P99"));
        for (Map.Entry<String, Row> e : rows.entrySet()) {
            String[] tc = e.getKey().split("\t");
            Row r = e.getValue();
            out.append(String.format(Locale.ROOT, "%-16s %-8s %10d %8d %10s %10s%n", tc[0], tc[1], (long) r.calls,
                    (long) r.errors, duration(quantile(0.5, r.buckets)), duration(quantile(0.99, r.buckets))));
        }
        if (rows.isEmpty()) {
            out.append("(no calls yet)\n");
        }
        out.append('\n').append(service);
        if (!pools.isEmpty()) {
            out.append("\nIPAM pools (allocated of capacity)\n").append(pools);
        }
        return out.toString();
    }

    private static String poolKey(Sample s) {
        return s.labels().get("plugin") + "\t" + s.labels().get("network") + "\t" + s.labels().get("family") + "\t"
                + store(s);
    }

    /** Where the pool is kept: host-local's {@code data_dir}, or cluster-ipam's {@code etcd_prefix} as etcd:PREFIX. */
    private static String store(Sample s) {
        String prefix = s.labels().get("etcd_prefix");
        return prefix != null ? "etcd:" + prefix : s.labels().get("data_dir");
    }

    /**
     * The q-quantile of a cumulative histogram ({@code le} to count), as {@code histogram_quantile}: the bucket the
     * rank falls in, linear between its lower and upper bound (the first bucket's lower bound is 0; a rank in +Inf
     * gives the highest finite bound). NaN without observations.
     */
    static double quantile(double q, TreeMap<Double, Double> buckets) {
        if (buckets.isEmpty()) {
            return Double.NaN;
        }
        double total = buckets.lastEntry().getValue();
        if (total == 0) {
            return Double.NaN;
        }
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> b : buckets.entrySet()) {
            if (b.getValue() >= rank) {
                if (b.getKey().isInfinite()) {
                    return lowerBound;
                }
                double inBucket = b.getValue() - lowerCount;
                return inBucket == 0 ? b.getKey()
                        : lowerBound + (b.getKey() - lowerBound) * (rank - lowerCount) / inBucket;
            }
            lowerBound = b.getKey();
            lowerCount = b.getValue();
        }
        return lowerBound;
    }

    private static String duration(double seconds) {
        if (Double.isNaN(seconds)) {
            return "-";
        }
        if (seconds < 1) {
            return String.format(Locale.ROOT, "%.2f ms", seconds * 1000);
        }
        return String.format(Locale.ROOT, "%.2f s", seconds);
    }
}
