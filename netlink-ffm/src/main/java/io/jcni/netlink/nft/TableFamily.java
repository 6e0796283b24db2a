package io.jcni.netlink.nft;

import io.jcni.netlink.internal.wire.NetfilterH;

/**
 * The family of an nftables table ({@code nft add table FAMILY NAME}): which packets its base chains see. On the wire
 * it is the {@code nfgen_family} of every message ({@code NFPROTO_*} of {@code <linux/netfilter.h>}).
 */
public enum TableFamily {
    /** {@code ip}: IPv4. */
    IP("ip", NetfilterH.NFPROTO_IPV4),
    /** {@code ip6}: IPv6. */
    IP6("ip6", NetfilterH.NFPROTO_IPV6),
    /** {@code inet}: IPv4 and IPv6 in one table (address matches then check {@code meta nfproto} first). */
    INET("inet", NetfilterH.NFPROTO_INET),
    /** {@code arp}. */
    ARP("arp", NetfilterH.NFPROTO_ARP),
    /** {@code bridge}: frames crossing a Linux bridge. */
    BRIDGE("bridge", NetfilterH.NFPROTO_BRIDGE),
    /** {@code netdev}: ingress/egress of one device. */
    NETDEV("netdev", NetfilterH.NFPROTO_NETDEV);

    private final String nftName;
    private final int nfproto;

    TableFamily(String nftName, int nfproto) {
        this.nftName = nftName;
        this.nfproto = nfproto;
    }

    /** The name {@code nft} uses: {@code ip}, {@code ip6}, {@code inet}, {@code bridge}, ... */
    public String nftName() {
        return nftName;
    }

    /** The {@code NFPROTO_*} value. */
    public int nfproto() {
        return nfproto;
    }

    /** The family of {@code NFPROTO_*} value {@code nfproto}. */
    public static TableFamily of(int nfproto) {
        for (TableFamily f : values()) {
            if (f.nfproto == nfproto) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown nftables family " + nfproto);
    }

    @Override
    public String toString() {
        return nftName;
    }
}
