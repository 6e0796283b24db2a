package io.jcni.netlink;

import io.jcni.netlink.internal.wire.IfLinkH;

/** RFC 2863 operational state of a link ({@code IF_OPER_*} in {@code IFLA_OPERSTATE}). */
public enum OperState {
    UNKNOWN, NOTPRESENT, DOWN, LOWERLAYERDOWN, TESTING, DORMANT, UP;

    /** The state for {@code IF_OPER_*} value {@code value}; {@link #UNKNOWN} for values this enum does not know. */
    public static OperState of(int value) {
        return switch (value) {
            case IfLinkH.IF_OPER_NOTPRESENT -> NOTPRESENT;
            case IfLinkH.IF_OPER_DOWN -> DOWN;
            case IfLinkH.IF_OPER_LOWERLAYERDOWN -> LOWERLAYERDOWN;
            case IfLinkH.IF_OPER_TESTING -> TESTING;
            case IfLinkH.IF_OPER_DORMANT -> DORMANT;
            case IfLinkH.IF_OPER_UP -> UP;
            default -> UNKNOWN;
        };
    }
}
