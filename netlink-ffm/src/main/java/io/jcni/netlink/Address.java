package io.jcni.netlink;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * An IP address on a link ({@code RTM_NEWADDR}; {@code ip addr}). Used both to request one and to read one back.
 * Read like {@code ip}: {@code Address.of(3, fd00_2, 64).flags(AddressFlag.NODAD)} is
 * {@code ip addr add fd00::2/64 dev <3> nodad}.
 *
 * <p>Addresses are {@link InetAddress} values and a prefix length, never text: this module reads and prints no IP
 * text of its own (callers parse it; {@link #toString()} uses {@link InetAddress#getHostAddress()} for messages).
 *
 * @param index the link's index
 * @param address the local address, host bits kept ({@code IFA_LOCAL}, or {@code IFA_ADDRESS} for IPv6)
 * @param prefixLength the prefix length of {@code address}: 0-32 for IPv4, 0-128 for IPv6
 * @param peer the other end of a point-to-point address ({@code ip addr add A peer P}), null if none
 * @param broadcast the IPv4 broadcast address. When requesting, null computes it from the prefix for IPv4
 *     prefixes of /30 and shorter (as Go's netlink library does); read back, null means none
 * @param label the IPv4 label ({@code IFA_LABEL}), null for none (the kernel then reports the link name)
 * @param validLifetime seconds, {@link #FOREVER} for permanent
 * @param preferredLifetime seconds, {@link #FOREVER} for permanent
 */
public record Address(int index, InetAddress address, int prefixLength, InetAddress peer, InetAddress broadcast,
        Scope scope, Set<AddressFlag> flags, String label, long validLifetime, long preferredLifetime) {

    /** The lifetime of a permanent address ({@code INFINITY_LIFE_TIME}, 0xFFFFFFFF). */
    public static final long FOREVER = 0xFFFF_FFFFL;

    public Address {
        Objects.requireNonNull(address, "address");
        Family.requirePrefixLength(address, prefixLength);
        Objects.requireNonNull(scope, "scope");
        flags = flags.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(flags)); // enum order
        if (validLifetime < 0 || validLifetime > FOREVER || preferredLifetime < 0 || preferredLifetime > FOREVER) {
            throw new IllegalArgumentException("lifetimes must be 0-" + FOREVER);
        }
    }

    /** {@code ip addr add ADDRESS/PREFIXLENGTH dev INDEX}: global scope, no flags, permanent. */
    public static Address of(int index, InetAddress address, int prefixLength) {
        return new Address(index, address, prefixLength, null, null, Scope.UNIVERSE, Set.of(), null, FOREVER,
                FOREVER);
    }

    public Address scope(Scope scope) {
        return new Address(index, address, prefixLength, peer, broadcast, scope, flags, label, validLifetime,
                preferredLifetime);
    }

    /** Replaces the flags, e.g. {@code flags(NODAD, NOPREFIXROUTE)}. */
    public Address flags(AddressFlag... flags) {
        Set<AddressFlag> set = flags.length == 0 ? Set.of() : EnumSet.copyOf(Arrays.asList(flags));
        return new Address(index, address, prefixLength, peer, broadcast, scope, set, label, validLifetime,
                preferredLifetime);
    }

    public Address peer(InetAddress peer) {
        return new Address(index, address, prefixLength, peer, broadcast, scope, flags, label, validLifetime,
                preferredLifetime);
    }

    public Address broadcast(InetAddress broadcast) {
        return new Address(index, address, prefixLength, peer, broadcast, scope, flags, label, validLifetime,
                preferredLifetime);
    }

    public Address label(String label) {
        return new Address(index, address, prefixLength, peer, broadcast, scope, flags, label, validLifetime,
                preferredLifetime);
    }

    /** {@code valid_lft V preferred_lft P} in seconds. */
    public Address lifetimes(long valid, long preferred) {
        return new Address(index, address, prefixLength, peer, broadcast, scope, flags, label, valid, preferred);
    }

    public Family family() {
        return Family.of(address);
    }

    public boolean isTentative() {
        return flags.contains(AddressFlag.TENTATIVE);
    }

    public boolean isDadFailed() {
        return flags.contains(AddressFlag.DADFAILED);
    }

    /** As {@code ip} would print the request: {@code 10.0.0.2/24 dev 3 scope link nodad}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(address.getHostAddress()).append('/').append(prefixLength);
        if (peer != null) {
            sb.append(" peer ").append(peer.getHostAddress());
        }
        if (broadcast != null) {
            sb.append(" brd ").append(broadcast.getHostAddress());
        }
        sb.append(" dev ").append(index);
        if (!scope.equals(Scope.UNIVERSE)) {
            sb.append(" scope ").append(scope);
        }
        for (AddressFlag f : flags) {
            sb.append(' ').append(f.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (label != null) {
            sb.append(" label ").append(label);
        }
        return sb.toString();
    }
}
