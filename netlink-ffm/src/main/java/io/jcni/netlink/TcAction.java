package io.jcni.netlink;

import io.jcni.netlink.internal.wire.PktClsH;
import io.jcni.netlink.internal.wire.TcMirredH;

/**
 * A traffic control action attached to a filter ({@code TCA_ACT_*}; {@code tc ... action KIND ...}). Actions run in
 * order; each ends with a verdict ({@code TC_ACT_*}) that decides whether the next one runs.
 */
public sealed interface TcAction {

    /** {@code TC_ACT_OK} ({@code pass}): the packet continues. */
    int PASS = PktClsH.TC_ACT_OK;
    /** {@code TC_ACT_SHOT} ({@code drop}). */
    int DROP = PktClsH.TC_ACT_SHOT;
    /** {@code TC_ACT_PIPE} ({@code pipe}): continue with the next action. */
    int PIPE = PktClsH.TC_ACT_PIPE;
    /** {@code TC_ACT_STOLEN} ({@code stolen}): the action consumed the packet. */
    int STOLEN = PktClsH.TC_ACT_STOLEN;

    /** {@code TCA_ACT_KIND}. */
    String kind();

    /**
     * The mirred action: {@code action mirred egress redirect dev <ifindex>} and its mirror/ingress variants.
     *
     * @param direction {@link #EGRESS_REDIRECT}, {@link #EGRESS_MIRROR}, {@link #INGRESS_REDIRECT} or
     *     {@link #INGRESS_MIRROR} ({@code tc_mirred.eaction})
     * @param ifindex the target link, in the namespace of the filter
     * @param verdict the control action after it ({@code tc_gen.action}): {@link #STOLEN} for a redirect as
     *     {@code tc} sets by default, {@link #PIPE} for a mirror
     */
    record Mirred(int direction, int ifindex, int verdict) implements TcAction {
        /** {@code TCA_EGRESS_REDIR}. */
        public static final int EGRESS_REDIRECT = TcMirredH.TCA_EGRESS_REDIR;
        /** {@code TCA_EGRESS_MIRROR}. */
        public static final int EGRESS_MIRROR = TcMirredH.TCA_EGRESS_MIRROR;
        /** {@code TCA_INGRESS_REDIR}. */
        public static final int INGRESS_REDIRECT = TcMirredH.TCA_INGRESS_REDIR;
        /** {@code TCA_INGRESS_MIRROR}. */
        public static final int INGRESS_MIRROR = TcMirredH.TCA_INGRESS_MIRROR;

        public Mirred {
            if (direction < EGRESS_REDIRECT || direction > INGRESS_MIRROR) {
                throw new IllegalArgumentException("mirred direction must be 1-4: " + direction);
            }
            if (ifindex <= 0) {
                throw new IllegalArgumentException("mirred target index must be positive: " + ifindex);
            }
        }

        /** {@code action mirred egress redirect dev <ifindex>} (verdict {@code stolen}). */
        public static Mirred egressRedirect(int ifindex) {
            return new Mirred(EGRESS_REDIRECT, ifindex, STOLEN);
        }

        /** The same action with another verdict. */
        public Mirred verdict(int verdict) {
            return new Mirred(direction, ifindex, verdict);
        }

        @Override
        public String kind() {
            return "mirred";
        }

        /** {@code mirred egress redirect dev 4 stolen}. */
        @Override
        public String toString() {
            String what = switch (direction) {
                case EGRESS_REDIRECT -> "egress redirect";
                case EGRESS_MIRROR -> "egress mirror";
                case INGRESS_REDIRECT -> "ingress redirect";
                default -> "ingress mirror";
            };
            String then = switch (verdict) {
                case PASS -> "pass";
                case DROP -> "drop";
                case PIPE -> "pipe";
                case STOLEN -> "stolen";
                default -> "verdict " + verdict;
            };
            return "mirred " + what + " dev " + ifindex + " " + then;
        }
    }

    /** Any other action; its options are not decoded. */
    record Other(String kind) implements TcAction {
    }
}
