package io.jcni.it.ipam;

import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Debian's dnsmasq as the DHCP server of a test: started in a test namespace on one interface, in the foreground, with
 * its configuration, pid file, lease file and log in the test's directory, DNS off ({@code --port=0}), nothing read
 * from {@code /etc}. {@link #close()} stops it (SIGTERM) and waits for it. The lease file is what the tests read back:
 * dnsmasq rewrites it on every lease change, one line per lease: expiry (epoch seconds), MAC, address, hostname
 * ({@code *} if none), client identifier ({@code *} if none).
 */
final class Dnsmasq implements AutoCloseable {
    /** One line of the lease file. */
    record LeaseLine(long expiry, String mac, String address, String hostname, String clientId) {
    }

    private final Process process;
    private final Path dir;
    private final Path leaseFile;

    private Dnsmasq(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
        this.leaseFile = dir.resolve("dnsmasq.leases");
    }

    /**
     * Starts dnsmasq in {@code netns} serving {@code iface} with addresses {@code rangeStart}-{@code rangeEnd} and a
     * lease time of {@code leaseTime} (dnsmasq's syntax, at least {@code 2m}); {@code options} are more flags, e.g.
     * {@code --dhcp-option=option:T1,5}. Waits until dnsmasq has bound its socket (its log says so).
     */
    static Dnsmasq start(TestNetns netns, Path dir, String iface, String rangeStart, String rangeEnd,
            String leaseTime, List<String> options) {
        Prerequisites.assumeCommand("dnsmasq");
        try {
            Files.createDirectories(dir);
            List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", netns.name(), "dnsmasq",
                    "--keep-in-foreground", "--conf-file=/dev/null", "--no-hosts", "--port=0", "--user=root",
                    "--interface=" + iface, "--bind-interfaces", "--dhcp-range=" + rangeStart + "," + rangeEnd + ","
                            + leaseTime,
                    "--dhcp-leasefile=" + dir.resolve("dnsmasq.leases"), "--pid-file=" + dir.resolve("dnsmasq.pid"),
                    "--log-facility=" + dir.resolve("dnsmasq.log"), "--log-dhcp"));
            command.addAll(options);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("dnsmasq.out").toFile()).start();
            Dnsmasq dnsmasq = new Dnsmasq(process, dir);
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!dnsmasq.log().contains("sockets bound exclusively to interface " + iface)) {
                if (!process.isAlive() || System.nanoTime() > end) {
                    String out = Files.exists(dir.resolve("dnsmasq.out"))
                            ? Files.readString(dir.resolve("dnsmasq.out")) : "";
                    dnsmasq.close();
                    throw new AssertionError("dnsmasq did not start: " + out + dnsmasq.log());
                }
                Thread.sleep(50);
            }
            return dnsmasq;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The leases in dnsmasq's lease file now. */
    List<LeaseLine> leases() {
        List<LeaseLine> leases = new ArrayList<>();
        try {
            if (!Files.exists(leaseFile)) {
                return leases;
            }
            for (String line : Files.readAllLines(leaseFile)) {
                String[] f = line.trim().split(" ");
                if (f.length >= 5) {
                    leases.add(new LeaseLine(Long.parseLong(f[0]), f[1], f[2], f[3], f[4]));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return leases;
    }

    Optional<LeaseLine> lease(String mac) {
        return leases().stream().filter(l -> l.mac().equalsIgnoreCase(mac)).findFirst();
    }

    /** Waits up to {@code timeout} for the lease file to satisfy {@code condition}; the leases then (or last seen). */
    List<LeaseLine> await(Predicate<List<LeaseLine>> condition, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        List<LeaseLine> now = leases();
        while (!condition.test(now) && System.nanoTime() < end) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            now = leases();
        }
        return now;
    }

    /** dnsmasq's log (with {@code --log-dhcp}: every message it received and sent). */
    String log() {
        try {
            Path log = dir.resolve("dnsmasq.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean isRunning() {
        return process.isAlive();
    }

    /** Stops dnsmasq (SIGTERM) and waits for it; idempotent. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
