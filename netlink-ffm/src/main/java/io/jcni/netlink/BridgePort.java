package io.jcni.netlink;

/**
 * A link's settings as a bridge port ({@code IFLA_INFO_SLAVE_DATA} of kind {@code bridge}; {@code ip -d link show}
 * prints them after {@code bridge_slave}).
 *
 * @param state {@code BR_STATE_*}: 0 disabled, 1 listening, 2 learning, 3 forwarding, 4 blocking
 * @param hairpin {@code IFLA_BRPORT_MODE}: frames may leave through the port they came in on
 * @param isolated {@code IFLA_BRPORT_ISOLATED}: no forwarding to other isolated ports
 */
public record BridgePort(int state, boolean hairpin, boolean isolated, boolean learning, boolean unicastFlood,
        int priority, int cost) {
}
