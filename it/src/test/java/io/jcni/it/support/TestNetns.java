package io.jcni.it.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A named network namespace made for one test ({@code ip netns add jcni-<tag>-<random>}) and deleted by
 * {@link #close()}, which is idempotent. Use it with try-with-resources, or as a JUnit field annotated
 * {@code @AutoClose} so it is deleted after each test also when the test fails.
 *
 * <p>Deleting the namespace destroys the links inside it, and with them the host ends of their veth pairs; links
 * a test made on the host (bridges) are the test's to delete.
 */
public final class TestNetns implements AutoCloseable {

    /** Where {@code ip netns} keeps its bind mounts; the path runtimes pass as CNI_NETNS. */
    public static final Path RUN_DIR = Path.of("/var/run/netns");

    private final String name;
    private boolean closed;

    private TestNetns(String name) {
        this.name = name;
    }

    /** Creates a fresh namespace; skips the test (assumption) without root or without {@code ip}. */
    public static TestNetns create(String tag) {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("ip");
        String name = Names.netns(tag);
        Processes.check("ip", "netns", "add", name);
        return new TestNetns(name);
    }

    public String name() {
        return name;
    }

    /** The namespace's path, e.g. {@code /var/run/netns/jcni-iop-0a1b2c3d}: what CNI_NETNS carries. */
    public Path path() {
        return RUN_DIR.resolve(name);
    }

    /** Runs a command inside the namespace ({@code ip netns exec <name> ...}). */
    public ProcessResult exec(String... command) {
        var full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        full.addAll(List.of(command));
        return Processes.run(full.toArray(String[]::new));
    }

    /** Reads links, addresses and routes inside this namespace. */
    public KernelState kernel() {
        return KernelState.in(this);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        ProcessResult del = Processes.run("ip", "netns", "del", name);
        if (!del.succeeded() && path().toFile().exists()) {
            throw new AssertionError("cannot delete test namespace " + name + ": " + del.describe());
        }
        closed = true;
    }

    @Override
    public String toString() {
        return name;
    }
}
