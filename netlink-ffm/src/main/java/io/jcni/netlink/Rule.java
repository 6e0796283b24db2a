package io.jcni.netlink;

import io.jcni.netlink.internal.wire.FibRulesH;
import java.net.InetAddress;
import java.util.Objects;

/**
 * A policy routing rule ({@code RTM_NEWRULE}; {@code ip rule}), used both to request one and to read one back. Read
 * like {@code ip}: {@code Rule.from(addr, 32).table(100).priority(1000)} is
 * {@code ip rule add from ADDR/32 lookup 100 pref 1000}. Prefixes are an {@link InetAddress} and a length, never text
 * (see {@link Address}).
 *
 * @param family the rule's family (rules of IPv4 and IPv6 are separate lists)
 * @param priority {@code pref}: the position in the list, lower first; -1 in a request lets the kernel choose (one
 *     below the lowest non-zero priority there), and in a delete matches any
 * @param table the table looked up ({@code lookup}, {@code FRA_TABLE}), 0 for none (an action other than
 *     {@link #ACTION_TO_TABLE}); tables above 255 are fine
 * @param source {@code from PREFIX}'s address, null for all
 * @param sourceLength {@code from PREFIX}'s length, 0 when {@code source} is null
 * @param destination {@code to PREFIX}'s address, null for all
 * @param destinationLength {@code to PREFIX}'s length, 0 when {@code destination} is null
 * @param inInterface {@code iif NAME}, null for any
 * @param outInterface {@code oif NAME}, null for any
 * @param action {@code FR_ACT_*}: {@link #ACTION_TO_TABLE} by default
 * @param invert {@code not}: the rule applies to packets that do not match
 */
public record Rule(Family family, int priority, int table, InetAddress source, int sourceLength,
        InetAddress destination, int destinationLength, String inInterface, String outInterface, int action,
        boolean invert) {

    /** {@code FR_ACT_TO_TBL}: look the route up in {@link #table()}. */
    public static final int ACTION_TO_TABLE = FibRulesH.FR_ACT_TO_TBL;
    /** {@code FR_ACT_BLACKHOLE}: drop silently. */
    public static final int ACTION_BLACKHOLE = FibRulesH.FR_ACT_BLACKHOLE;
    /** {@code FR_ACT_UNREACHABLE}: drop with ENETUNREACH. */
    public static final int ACTION_UNREACHABLE = FibRulesH.FR_ACT_UNREACHABLE;
    /** {@code FR_ACT_PROHIBIT}: drop with EACCES. */
    public static final int ACTION_PROHIBIT = FibRulesH.FR_ACT_PROHIBIT;

    public Rule {
        Objects.requireNonNull(family, "family");
        requirePrefix(family, source, sourceLength);
        requirePrefix(family, destination, destinationLength);
        if (priority < -1 || table < 0 || action < 0 || action > 255) {
            throw new IllegalArgumentException("bad priority, table or action in rule: " + priority + ", " + table
                    + ", " + action);
        }
        if (inInterface != null) {
            LinkAttrs.checkName(inInterface);
        }
        if (outInterface != null) {
            LinkAttrs.checkName(outInterface);
        }
    }

    /** {@code ip [-6] rule add lookup main}: every packet of the family, main table, the kernel's priority. */
    public static Rule of(Family family) {
        return new Rule(family, -1, Route.TABLE_MAIN, null, 0, null, 0, null, null, ACTION_TO_TABLE, false);
    }

    /** {@code ip rule add from SOURCE/LENGTH lookup main}. */
    public static Rule from(InetAddress source, int sourceLength) {
        return of(Family.of(source)).source(source, sourceLength);
    }

    public Rule priority(int priority) {
        return new Rule(family, priority, table, source, sourceLength, destination, destinationLength, inInterface,
                outInterface, action, invert);
    }

    /** {@code lookup TABLE}. */
    public Rule table(int table) {
        return new Rule(family, priority, table, source, sourceLength, destination, destinationLength, inInterface,
                outInterface, action, invert);
    }

    /** {@code from SOURCE/LENGTH}. */
    public Rule source(InetAddress source, int sourceLength) {
        return new Rule(family, priority, table, source, sourceLength, destination, destinationLength, inInterface,
                outInterface, action, invert);
    }

    /** {@code to DESTINATION/LENGTH}. */
    public Rule to(InetAddress destination, int destinationLength) {
        return new Rule(family, priority, table, source, sourceLength, destination, destinationLength, inInterface,
                outInterface, action, invert);
    }

    /** {@code iif NAME}. */
    public Rule iif(String name) {
        return new Rule(family, priority, table, source, sourceLength, destination, destinationLength, name,
                outInterface, action, invert);
    }

    /** {@code oif NAME}. */
    public Rule oif(String name) {
        return new Rule(family, priority, table, source, sourceLength, destination, destinationLength, inInterface,
                name, action, invert);
    }

    /** {@code FR_ACT_*}, e.g. {@link #ACTION_BLACKHOLE}; other actions than the table lookup take no table. */
    public Rule action(int action) {
        return new Rule(family, priority, action == ACTION_TO_TABLE ? table : 0, source, sourceLength, destination,
                destinationLength, inInterface, outInterface, action, invert);
    }

    /** {@code not}. */
    public Rule invert(boolean invert) {
        return new Rule(family, priority, table, source, sourceLength, destination, destinationLength, inInterface,
                outInterface, action, invert);
    }

    /** A prefix of the rule's family with a length that fits it, or none (null and 0). */
    private static void requirePrefix(Family family, InetAddress address, int length) {
        if (address == null) {
            if (length != 0) {
                throw new IllegalArgumentException("prefix length " + length + " without an address in rule");
            }
            return;
        }
        if (Family.of(address) != family) {
            throw new IllegalArgumentException("rule of " + family + " with a prefix of the other family: "
                    + address.getHostAddress());
        }
        Family.requirePrefixLength(address, length);
    }

    /** As {@code ip rule} prints it: {@code 1000: from 10.0.0.5/32 lookup 100}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (priority >= 0) {
            sb.append(priority).append(": ");
        }
        sb.append(family == Family.V4 ? "inet " : "inet6 ");
        if (invert) {
            sb.append("not ");
        }
        sb.append("from ").append(source == null ? "all" : source.getHostAddress() + "/" + sourceLength);
        if (destination != null) {
            sb.append(" to ").append(destination.getHostAddress()).append('/').append(destinationLength);
        }
        if (inInterface != null) {
            sb.append(" iif ").append(inInterface);
        }
        if (outInterface != null) {
            sb.append(" oif ").append(outInterface);
        }
        switch (action) {
            case ACTION_TO_TABLE -> sb.append(" lookup ").append(table);
            case ACTION_BLACKHOLE -> sb.append(" blackhole");
            case ACTION_UNREACHABLE -> sb.append(" unreachable");
            case ACTION_PROHIBIT -> sb.append(" prohibit");
            default -> sb.append(" action ").append(action);
        }
        return sb.toString();
    }
}
