package io.jcni.it.support;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds what tests left on the machine's own namespace: network namespaces and links whose names start with a prefix
 * (use {@link Names#prefix(String)}). Every class is checked after it ran, and more thoroughly, by
 * {@link HostStateGuard}; this is for a test that wants to see a namespace come and go.
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
}
