package io.jcni.netlink;

import io.jcni.netlink.internal.wire.RtnetlinkH;

/**
 * An address or route scope ({@code RT_SCOPE_*}): how far a destination is. Any value 0-255 is valid (user-defined
 * scopes exist), the usual ones are constants.
 */
public record Scope(int value) {
    /** {@code RT_SCOPE_UNIVERSE} (0): global. */
    public static final Scope UNIVERSE = new Scope(RtnetlinkH.RT_SCOPE_UNIVERSE);
    /** {@code RT_SCOPE_SITE} (200). */
    public static final Scope SITE = new Scope(RtnetlinkH.RT_SCOPE_SITE);
    /** {@code RT_SCOPE_LINK} (253): on this link only. */
    public static final Scope LINK = new Scope(RtnetlinkH.RT_SCOPE_LINK);
    /** {@code RT_SCOPE_HOST} (254): this host only. */
    public static final Scope HOST = new Scope(RtnetlinkH.RT_SCOPE_HOST);
    /** {@code RT_SCOPE_NOWHERE} (255). */
    public static final Scope NOWHERE = new Scope(RtnetlinkH.RT_SCOPE_NOWHERE);

    public Scope {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("scope must be 0-255: " + value);
        }
    }

    /** The scope of {@code value}, using the shared constants for the usual ones. */
    public static Scope of(int value) {
        return switch (value) {
            case RtnetlinkH.RT_SCOPE_UNIVERSE -> UNIVERSE;
            case RtnetlinkH.RT_SCOPE_SITE -> SITE;
            case RtnetlinkH.RT_SCOPE_LINK -> LINK;
            case RtnetlinkH.RT_SCOPE_HOST -> HOST;
            case RtnetlinkH.RT_SCOPE_NOWHERE -> NOWHERE;
            default -> new Scope(value);
        };
    }

    /** As {@code ip} prints it: {@code global}, {@code site}, {@code link}, {@code host}, {@code nowhere} or the number. */
    @Override
    public String toString() {
        return switch (value) {
            case RtnetlinkH.RT_SCOPE_UNIVERSE -> "global";
            case RtnetlinkH.RT_SCOPE_SITE -> "site";
            case RtnetlinkH.RT_SCOPE_LINK -> "link";
            case RtnetlinkH.RT_SCOPE_HOST -> "host";
            case RtnetlinkH.RT_SCOPE_NOWHERE -> "nowhere";
            default -> Integer.toString(value);
        };
    }
}
