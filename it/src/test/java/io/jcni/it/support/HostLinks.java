package io.jcni.it.support;

/** Removing links a test made in the host namespace (bridges, dangling veth ends), for cleanup paths. */
public final class HostLinks {

    private HostLinks() {}

    /**
     * {@code ip link del <name>}; a link that is already gone is fine. Uses only {@code ip}, so it works in a
     * cleanup path even when whatever failed the test (JSON parsing, a driver) is broken.
     */
    public static void deleteIfPresent(String name) {
        ProcessResult del = Processes.run("ip", "link", "del", name);
        if (!del.succeeded() && Processes.run("ip", "link", "show", name).succeeded()) {
            throw new AssertionError("cannot delete host link " + name + ": " + del.describe());
        }
    }
}
