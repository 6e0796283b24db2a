package io.jcni.it.support;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for the servers a test starts (etcd members, prometheus), taken below the kernel's ephemeral
 * range. A port that {@code bind(0)} hands out lies inside that range, so between the check and the server's own
 * bind any outgoing connection on the host (an etcd member dialling its peers, the test's HTTP client) may take it
 * as its source port, and the server then exits with "address already in use". Below the range only another
 * listener can take a port, and each port is handed out once per JVM.
 */
public final class LoopbackPorts {
    private static final int LOWEST = 10000;
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {
    }

    /** A loopback port nothing listens on now, not handed out before by this JVM. */
    public static int next() throws IOException {
        int highest = ephemeralLow() - 1;
        if (highest - LOWEST < 1000) {
            return kernelPicked();
        }
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
            if (!GIVEN.add(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return port;
            } catch (IOException inUse) {
                // another listener has it: try the next
            }
        }
        throw new IOException("no free loopback port in " + LOWEST + "-" + highest + " after 500 tries");
    }

    /** The range leaves no room below it: fall back to a port the kernel picks. */
    private static int kernelPicked() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            GIVEN.add(s.getLocalPort());
            return s.getLocalPort();
        }
    }

    /** The first port of {@code net.ipv4.ip_local_port_range} (32768 when it cannot be read). */
    static int ephemeralLow() {
        try {
            String[] range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }
}
