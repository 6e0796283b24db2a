package io.jcni.netlink;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A named network namespace for one test ({@code ip netns add jcni-nl-...}), opened as a {@link NetNs} with a
 * {@link NetlinkHandle} in it; {@link #close()} deletes it with everything inside. Tests read state back both through
 * {@link #nl} and through iproute2's JSON ({@link #ip}).
 */
public final class TestNamespace implements AutoCloseable {
    public final String name;
    public final NetNs ns;
    public final NetlinkHandle nl;

    private TestNamespace(String name) {
        this.name = name;
        Kernel.sh("ip", "netns", "add", name);
        NetNs opened = null;
        try {
            opened = NetNs.open(Path.of("/run/netns", name));
            this.ns = opened;
            this.nl = Netlink.open(opened);
        } catch (RuntimeException | Error e) {
            if (opened != null) {
                opened.close();
            }
            Kernel.run("ip", "netns", "del", name);
            throw e;
        }
    }

    public static TestNamespace create() {
        Kernel.assumeRoot();
        return new TestNamespace(Kernel.uniqueName("ns"));
    }

    /** {@code ip -n NAME -j ARGS...}. */
    JsonNode ip(String... args) {
        List<String> command = new ArrayList<>(List.of("ip", "-n", name, "-j"));
        command.addAll(List.of(args));
        return Kernel.json(command.toArray(String[]::new));
    }

    /** {@code tc -n NAME -j ARGS...}. */
    JsonNode tc(String... args) {
        List<String> command = new ArrayList<>(List.of("tc", "-n", name, "-j"));
        command.addAll(List.of(args));
        return Kernel.json(command.toArray(String[]::new));
    }

    /** {@code ip -n NAME -j -d link show dev LINK}, the one entry. */
    JsonNode ipLink(String link) {
        return ip("-d", "link", "show", "dev", link).get(0);
    }

    /** {@code bridge -n NAME -j ARGS...}. */
    JsonNode bridge(String... args) {
        List<String> command = new ArrayList<>(List.of("bridge", "-n", name, "-j"));
        command.addAll(List.of(args));
        return Kernel.json(command.toArray(String[]::new));
    }

    /** {@code nft -j ARGS...} run inside this namespace. */
    JsonNode nftJson(String... args) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", name, "nft", "-j"));
        command.addAll(List.of(args));
        return Kernel.json(command.toArray(String[]::new));
    }

    /** {@code nft ARGS...} run inside this namespace: its text output. */
    String nft(String... args) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", name, "nft"));
        command.addAll(List.of(args));
        return Kernel.sh(command.toArray(String[]::new));
    }

    /** A veth pair inside this namespace, both ends up: a parent link for the tests (the kernel lacks dummy). */
    public Link vethPair(String name, String peer) {
        nl.addVeth(LinkAttrs.named(name).up(true), LinkAttrs.named(peer));
        nl.setUp(nl.link(peer).index());
        return nl.link(name);
    }

    @Override
    public void close() {
        try {
            nl.close();
        } finally {
            ns.close();
            Kernel.run("ip", "netns", "del", name);
        }
    }
}
