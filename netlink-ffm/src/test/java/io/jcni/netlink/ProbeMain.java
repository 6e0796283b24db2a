package io.jcni.netlink;

/** Run in a child JVM by {@link NativeAccessProbeTest}: probes, then opens a handle, printing what happened. */
public final class ProbeMain {
    private ProbeMain() {}

    public static void main(String[] args) {
        System.out.println("unavailability: " + Netlink.unavailability().orElse("none"));
        try {
            Netlink.checkAvailable();
            try (NetlinkHandle nl = Netlink.open()) {
                System.out.println("opened, lo index " + nl.link("lo").index());
            }
        } catch (NetlinkException e) {
            System.out.println("kind " + e.kind() + ": " + e.getMessage());
        }
    }
}
