package io.jcni.netlink.nft;

import io.jcni.netlink.internal.wire.NetfilterH;
import java.util.Objects;

/**
 * An nftables chain. A base chain ({@link #base()} non-null) is attached to a netfilter hook and sees packets:
 * {@code nft add chain FAMILY TABLE NAME { type TYPE hook HOOK priority PRIO ; policy POLICY ; }}. A regular chain
 * ({@code base} null) runs only when a rule jumps to it: {@code nft add chain FAMILY TABLE NAME}.
 *
 * @param handle the kernel's handle ({@code nft -a}); 0 in a chain to create
 * @param comment the chain's comment ({@code NFTNL_UDATA_CHAIN_COMMENT}), or null
 */
public record Chain(TableFamily family, String table, String name, Base base, String comment, long handle) {
    public Chain {
        Objects.requireNonNull(family, "family");
        Names.check("table", table);
        Names.check("chain", name);
        Names.checkComment(comment);
    }

    /** {@code nft add chain FAMILY TABLE NAME}. */
    public static Chain regular(TableFamily family, String table, String name) {
        return new Chain(family, table, name, null, null, 0);
    }

    /** {@code nft add chain FAMILY TABLE NAME { type TYPE hook HOOK priority PRIORITY ; policy POLICY ; }}. */
    public static Chain base(TableFamily family, String table, String name, Type type, Hook hook, int priority,
            Policy policy) {
        return new Chain(family, table, name, new Base(type, hook, priority, policy), null, 0);
    }

    /** This chain with {@code comment} ({@code { comment "..." ; }}). */
    public Chain withComment(String comment) {
        return new Chain(family, table, name, base, comment, handle);
    }

    public boolean isBase() {
        return base != null;
    }

    /** Where a base chain hooks in, in what order, and what happens to packets no rule decided. */
    public record Base(Type type, Hook hook, int priority, Policy policy) {
        public Base {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(hook, "hook");
            Objects.requireNonNull(policy, "policy");
        }
    }

    /** Chain types: what a base chain may do. */
    public enum Type {
        /** {@code filter}: accept or drop. */
        FILTER("filter"),
        /** {@code nat}: sees the first packet of each connection; {@code dnat}, {@code snat}, {@code masquerade}. */
        NAT("nat"),
        /** {@code route}: re-routes locally generated packets whose marks or addresses it changes. */
        ROUTE("route");

        private final String nftName;

        Type(String nftName) {
            this.nftName = nftName;
        }

        public String nftName() {
            return nftName;
        }

        public static Type of(String nftName) {
            for (Type t : values()) {
                if (t.nftName.equals(nftName)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown chain type " + nftName);
        }
    }

    /**
     * Netfilter hooks of the {@code ip}, {@code ip6}, {@code inet} and {@code bridge} families
     * ({@code NF_INET_*} of {@code <linux/netfilter.h>}; the bridge's {@code NF_BR_*} have the same numbers).
     */
    public enum Hook {
        PREROUTING("prerouting", NetfilterH.NF_INET_PRE_ROUTING),
        INPUT("input", NetfilterH.NF_INET_LOCAL_IN),
        FORWARD("forward", NetfilterH.NF_INET_FORWARD),
        OUTPUT("output", NetfilterH.NF_INET_LOCAL_OUT),
        POSTROUTING("postrouting", NetfilterH.NF_INET_POST_ROUTING);

        private final String nftName;
        private final int value;

        Hook(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        public String nftName() {
            return nftName;
        }

        public int value() {
            return value;
        }

        public static Hook of(int value) {
            for (Hook h : values()) {
                if (h.value == value) {
                    return h;
                }
            }
            throw new IllegalArgumentException("unsupported hook " + value);
        }
    }

    /** What a base chain does with a packet its rules did not decide. */
    public enum Policy {
        ACCEPT(NetfilterH.NF_ACCEPT),
        DROP(NetfilterH.NF_DROP);

        private final int value;

        Policy(int value) {
            this.value = value;
        }

        public int value() {
            return value;
        }

        public static Policy of(int value) {
            return value == NetfilterH.NF_DROP ? DROP : ACCEPT;
        }
    }

    /** {@code priority raw} (ip, ip6, inet). */
    public static final int PRIORITY_RAW = -300;
    /** {@code priority mangle}. */
    public static final int PRIORITY_MANGLE = -150;
    /** {@code priority dstnat}: DNAT in prerouting and output (ip, ip6, inet). */
    public static final int PRIORITY_DSTNAT = -100;
    /** {@code priority filter}. */
    public static final int PRIORITY_FILTER = 0;
    /** {@code priority security}. */
    public static final int PRIORITY_SECURITY = 50;
    /** {@code priority srcnat}: SNAT and masquerade in postrouting (ip, ip6, inet). */
    public static final int PRIORITY_SRCNAT = 100;
    /** {@code priority dstnat} in the bridge family. */
    public static final int PRIORITY_BRIDGE_DSTNAT = -300;
    /** {@code priority filter} in the bridge family. */
    public static final int PRIORITY_BRIDGE_FILTER = -200;
}
