package io.jcni.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A node of a test's own: a network namespace that stands for the host a runtime and its plugins run on, and the
 * container namespaces attached to it. Plugins that touch the host side (bridge, ptp, portmap, macvlan's master,
 * host-device) run here, never in the machine's own namespace: whatever they do to the "host" (bridges, veth ends,
 * routes, forwarding sysctls, iptables rules) is read back from this namespace, and goes with it when {@link #close()}
 * deletes it, also when the test failed. Use with try-with-resources or as an {@code @AutoClose} field.
 *
 * <p>Three ways to put a runtime in this host: {@link #libcni} (Go libcni's driver under {@code ip netns exec}),
 * {@link #command} (any command line, e.g. {@code dist/bin/jcni}), and {@link #runtimeCniPath} for a runtime in this
 * JVM (jcni's {@code CniRuntime}), whose plugin executions are routed into the namespace by launch scripts.
 *
 * <p>A fresh host starts with {@code lo} up and forwarding off (IPv4 and IPv6), as a node before any network plugin
 * ran: a new namespace would otherwise inherit the machine's IPv4 forwarding, and a test asserting that a plugin
 * enabled it would prove nothing.
 */
public final class TestHost implements AutoCloseable {
    private final String tag;
    private final TestNetns netns;
    private final List<TestNetns> containers = new ArrayList<>();
    private boolean closed;

    private TestHost(String tag, TestNetns netns) {
        this.tag = tag;
        this.netns = netns;
    }

    /** Creates the host namespace; skips the test (assumption) without root or {@code ip}. */
    public static TestHost create(String tag) {
        TestNetns netns = TestNetns.create(tag);
        try {
            netns.exec("ip", "link", "set", "lo", "up").requireSuccess();
            netns.exec("sysctl", "-qw", "net.ipv4.ip_forward=0", "net.ipv6.conf.all.forwarding=0").requireSuccess();
            return new TestHost(tag, netns);
        } catch (RuntimeException | Error e) {
            netns.close();
            throw e;
        }
    }

    /** The namespace's name, for {@code ip netns exec}. */
    public String name() {
        return netns.name();
    }

    public TestNetns netns() {
        return netns;
    }

    /** Links, addresses, routes and sysctls of this host, read with {@code ip -j}. */
    public KernelState kernel() {
        return netns.kernel();
    }

    /** Runs a command in this host ({@code ip netns exec NAME ...}). */
    public ProcessResult exec(String... command) {
        return netns.exec(command);
    }

    /**
     * Waits (at most {@code limit}) until no IPv6 address in this host is tentative, its duplicate address detection
     * over: until then the kernel answers nothing for the address (and adds its local route only after), 1 to 2.5 s
     * after a link or an address appears on this machine kind.
     */
    public void awaitNoTentativeAddresses(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            String tentative = exec("ip", "-6", "-o", "addr", "show", "tentative").requireSuccess().stdout();
            if (tentative.isBlank()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("IPv6 addresses still tentative after " + limit.toSeconds() + " s in " + this
                        + ": " + tentative.strip());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /** {@code command} prefixed so that it runs in this host: {@code ip netns exec NAME command...}. */
    public List<String> command(List<String> command) {
        var full = new ArrayList<>(List.of("ip", "netns", "exec", netns.name()));
        full.addAll(command);
        return full;
    }

    /** Runs {@code command} in this host with extra environment, stdin and a timeout (see {@link Processes}). */
    public ProcessResult run(List<String> command, Map<String, String> env, String stdin, Duration timeout) {
        return Processes.run(command(command), env, stdin, timeout);
    }

    /** A fresh container namespace, deleted by {@link #close()} before the host. */
    public TestNetns container() {
        TestNetns container = TestNetns.create(tag);
        containers.add(container);
        return container;
    }

    /**
     * A container namespace linked to this host by a veth ({@code up0} here, {@code up1} there), both ends up with the
     * addresses given (e.g. {@code 172.31.251.1/24} and {@code .2/24}), and its loopback up: a client from outside the
     * node, e.g. of published ports.
     */
    public TestNetns linkedClient(String hostAddress, String clientAddress) {
        TestNetns client = container();
        exec("ip", "link", "add", "up0", "type", "veth", "peer", "name", "up1", "netns", client.name())
                .requireSuccess();
        exec("ip", "addr", "add", hostAddress, "dev", "up0").requireSuccess();
        exec("ip", "link", "set", "up0", "up").requireSuccess();
        client.exec("ip", "link", "set", "lo", "up").requireSuccess();
        client.exec("ip", "addr", "add", clientAddress, "dev", "up1").requireSuccess();
        client.exec("ip", "link", "set", "up1", "up").requireSuccess();
        return client;
    }

    /** Go libcni's driver running in this host: the plugins it execs find this namespace as their host. */
    public LibcniDriver libcni(List<Path> cniPath, Path cacheDir) {
        return LibcniDriver.create(cniPath, cacheDir).inNetns(netns.name());
    }

    /**
     * A CNI_PATH for a runtime living in this JVM (jcni's {@code CniRuntime}) whose plugins must run in this host: a
     * directory {@code dir} holding, for each executable found in {@code cniPath} (first one wins, as in a lookup), a
     * launch script that execs it under {@code ip netns exec}. The script gives the plugin the real {@code cniPath} as
     * its CNI_PATH, so that what the plugin looks up itself (its IPAM plugin, in-process if it is one of jcni's
     * launchers) is exactly what it would find if the runtime ran in this host with {@code cniPath}. The plugin
     * replaces the script's process ({@code exec}), so its pid, exit status and signals are the runtime's to see.
     */
    public List<Path> runtimeCniPath(Path dir, List<Path> cniPath) {
        String ip = requireQuotable(String.valueOf(Prerequisites.which("ip")));
        String realPath = requireQuotable(cniPath.stream().map(Path::toString).collect(Collectors.joining(":")));
        Set<String> written = new HashSet<>();
        try {
            Files.createDirectories(dir);
            for (Path source : cniPath) {
                if (!Files.isDirectory(source)) {
                    continue;
                }
                try (Stream<Path> files = Files.list(source)) {
                    for (Path plugin : files.sorted().toList()) {
                        String type = plugin.getFileName().toString();
                        if (!Files.isExecutable(plugin) || Files.isDirectory(plugin) || !written.add(type)) {
                            continue;
                        }
                        Path script = dir.resolve(type);
                        Files.writeString(script, "#!/bin/sh\n"
                                + "# " + type + " from " + source + ", run in the test host " + netns.name() + "\n"
                                + "CNI_PATH='" + realPath + "'\nexport CNI_PATH\n"
                                + "exec '" + ip + "' netns exec '" + netns.name() + "' '"
                                + requireQuotable(plugin.toString()) + "' \"$@\"\n");
                        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write launch scripts into " + dir, e);
        }
        return List.of(dir);
    }

    private static String requireQuotable(String text) {
        if (text.contains("'") || text.equals("null")) {
            throw new IllegalArgumentException("cannot single-quote for sh: " + text);
        }
        return text;
    }

    /** This host's iptables nat table, IPv4 then IPv6, as {@code iptables -S} prints it (what portmap programs). */
    public List<String> natRules() {
        List<String> rules = new ArrayList<>();
        for (String tool : List.of("iptables", "ip6tables")) {
            exec(tool, "-w", "-t", "nat", "-S").requireSuccess().stdout().lines().filter(l -> !l.isBlank())
                    .forEach(rules::add);
        }
        return rules;
    }

    /** Deletes the containers, then the host (and with it its bridges, veths, routes and rules); idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        AssertionError failure = null;
        for (TestNetns container : containers.reversed()) {
            try {
                container.close();
            } catch (AssertionError e) {
                failure = failure == null ? e : failure;
            }
        }
        netns.close();
        closed = true;
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "test host " + netns.name();
    }
}
