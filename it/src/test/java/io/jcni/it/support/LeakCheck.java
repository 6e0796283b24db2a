package io.jcni.it.support;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds what tests left on the host: network namespaces and host links whose names start with a prefix (use
 * {@link Names#prefix(String)}). Call it in {@code @AfterAll}, after every test of the class has cleaned up.
 */
public final class LeakCheck {

    private LeakCheck() {}

    /** Names from {@code ip netns list} starting with {@code prefix}. */
    public static List<String> netns(String prefix) {
        var found = new ArrayList<String>();
        for (String line : Processes.check("ip", "netns", "list").stdout().split("\n")) {
            String name = line.strip().split("\\s+")[0];
            if (name.startsWith(prefix)) {
                found.add(name);
            }
        }
        return found;
    }

    /** Links of the host namespace whose names start with {@code prefix}. */
    public static List<String> hostLinks(String prefix) {
        return KernelState.host().links().stream().map(IpLink::name).filter(n -> n.startsWith(prefix)).toList();
    }

    /** Fails, naming each leftover, if any namespace or host link starts with {@code prefix}. */
    public static void assertNoneLeft(String prefix) {
        List<String> namespaces = netns(prefix);
        List<String> links = hostLinks(prefix);
        if (!namespaces.isEmpty() || !links.isEmpty()) {
            throw new AssertionError("left on the host: namespaces " + namespaces + ", host links " + links
                    + " (remove with: ip netns del NAME; ip link del NAME)");
        }
    }

    /** Fails if a host link of this exact name exists (e.g. the host end of a veth after DEL). */
    public static void assertNoHostLink(String name) {
        if (KernelState.host().link(name).isPresent()) {
            throw new AssertionError("host link " + name + " still exists");
        }
    }
}
