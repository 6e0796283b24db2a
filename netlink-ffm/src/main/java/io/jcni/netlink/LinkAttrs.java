package io.jcni.netlink;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a new link gets at creation besides its type: {@code ip link add NAME [mtu M] [address MAC] [txqueuelen N]
 * [netns NS] [up] ...}. Zero MTU, null MAC, -1 queue length and null namespace leave the kernel's default.
 * Read like {@code ip}: {@code LinkAttrs.named("eth0").mtu(1400).address(mac).netns(container).up(true)}.
 *
 * @param netns when set, the link is created directly in that namespace ({@code IFLA_NET_NS_FD}): it never appears
 *     in the handle's own namespace, and a parent link (vlan, macvlan, ipvlan) is still looked up in the handle's
 *     namespace. The {@link NetNs} must stay open until the request returns.
 */
public record LinkAttrs(String name, int mtu, MacAddress address, int txQueueLen, NetNs netns, boolean up) {

    public LinkAttrs {
        checkName(name);
        if (mtu < 0) {
            throw new IllegalArgumentException("mtu must not be negative: " + mtu);
        }
        if (txQueueLen < -1) {
            throw new IllegalArgumentException("txqueuelen must be -1 (default) or more: " + txQueueLen);
        }
    }

    /** A link named {@code name} with the kernel's defaults for everything else. */
    public static LinkAttrs named(String name) {
        return new LinkAttrs(name, 0, null, -1, null, false);
    }

    public LinkAttrs mtu(int mtu) {
        return new LinkAttrs(name, mtu, address, txQueueLen, netns, up);
    }

    public LinkAttrs address(MacAddress address) {
        return new LinkAttrs(name, mtu, address, txQueueLen, netns, up);
    }

    public LinkAttrs txQueueLen(int txQueueLen) {
        return new LinkAttrs(name, mtu, address, txQueueLen, netns, up);
    }

    public LinkAttrs netns(NetNs netns) {
        return new LinkAttrs(name, mtu, address, txQueueLen, netns, up);
    }

    /** Whether the link is set up in the same request that creates it. */
    public LinkAttrs up(boolean up) {
        return new LinkAttrs(name, mtu, address, txQueueLen, netns, up);
    }

    /**
     * Checks a Linux interface name: 1-15 bytes, not {@code .} or {@code ..}, no {@code /}, {@code :} or whitespace
     * (the kernel's {@code dev_valid_name}).
     *
     * @throws IllegalArgumentException naming the rule broken
     */
    public static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > 15) {
            throw new IllegalArgumentException("interface name must have 1-15 bytes: \"" + name + "\"");
        }
        if (name.equals(".") || name.equals("..") || hasForbiddenChar(name)) {
            throw new IllegalArgumentException("invalid interface name \"" + name + "\"");
        }
        return name;
    }

    /** The kernel's {@code dev_valid_name}: no '/', ':' or white space. */
    private static boolean hasForbiddenChar(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == ':' || Character.isWhitespace(c)) {
                return true;
            }
        }
        return false;
    }
}
