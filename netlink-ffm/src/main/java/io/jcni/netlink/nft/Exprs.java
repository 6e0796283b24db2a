package io.jcni.netlink.nft;

import io.jcni.netlink.Family;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.internal.wire.InH;
import io.jcni.netlink.internal.wire.NfConntrackH;
import io.jcni.netlink.internal.wire.NfNatH;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The expressions of one rule, written statement by statement the way {@code nft} 1.0 compiles them (checked
 * against {@code nft --debug=netlink} byte for byte), so that {@code nft list} prints the rule as its {@code nft}
 * equivalent. Each method names its {@code nft} syntax; matches come first, then statements, as in {@code nft}:
 *
 * <pre>{@code
 * // ip saddr 10.88.0.5 ip daddr != 10.88.0.0/16 masquerade
 * List<Expr> masq = Exprs.in(TableFamily.INET)
 *         .saddr(container).notDaddr(subnet, 16).masquerade().toList();
 * }</pre>
 *
 * <p>Like {@code nft}, a rule checks a protocol once before matching its fields: in an {@code inet} table an address
 * match first checks {@code meta nfproto}, in a {@code bridge} or {@code netdev} table {@code meta protocol}; a port
 * match first checks {@code meta l4proto}. Matches of two different protocols in one rule are refused, as {@code nft}
 * refuses them ("conflicting protocols"). {@code nft} also merges adjacent equal payload matches (e.g.
 * {@code ip saddr A ip daddr B} in an {@code ip} table) into one load; this class does not: the rule means the same and
 * lists the same.
 *
 * <p>Not thread-safe; one instance per rule.
 */
public final class Exprs {
    /** {@code ct state invalid}. */
    public static final int CT_STATE_INVALID = NfConntrackH.NF_CT_STATE_INVALID_BIT;
    /** {@code ct state established}. */
    public static final int CT_STATE_ESTABLISHED = ctStateBit(NfConntrackH.IP_CT_ESTABLISHED);
    /** {@code ct state related}. */
    public static final int CT_STATE_RELATED = ctStateBit(NfConntrackH.IP_CT_RELATED);
    /** {@code ct state new}. */
    public static final int CT_STATE_NEW = ctStateBit(NfConntrackH.IP_CT_NEW);
    /** {@code ct state untracked}. */
    public static final int CT_STATE_UNTRACKED = NfConntrackH.NF_CT_STATE_UNTRACKED_BIT;
    /** {@code ct status snat}. */
    public static final int CT_STATUS_SNAT = NfConntrackH.IPS_SRC_NAT;
    /** {@code ct status dnat}. */
    public static final int CT_STATUS_DNAT = NfConntrackH.IPS_DST_NAT;
    /** {@code tcp}. */
    public static final int TCP = InH.IPPROTO_TCP;
    /** {@code udp}. */
    public static final int UDP = InH.IPPROTO_UDP;
    /** {@code sctp}. */
    public static final int SCTP = InH.IPPROTO_SCTP;
    /** {@code fib ... type local} ({@code RTN_LOCAL}). */
    public static final int RTN_LOCAL = RtnetlinkH.RTN_LOCAL;

    private static final int IFNAMSIZ = 16;
    private static final int ETH_P_IP = 0x0800;
    private static final int ETH_P_IPV6 = 0x86dd;

    /** A field of the packet or its metadata, for a set lookup ({@code FIELD . FIELD @set}). */
    public enum Field {
        /** {@code ip saddr}. */
        IP_SADDR(Family.V4),
        /** {@code ip daddr}. */
        IP_DADDR(Family.V4),
        /** {@code ip6 saddr}. */
        IP6_SADDR(Family.V6),
        /** {@code ip6 daddr}. */
        IP6_DADDR(Family.V6),
        /** {@code meta l4proto}. */
        L4PROTO(null),
        /** {@code th sport}: the transport header's source port, whatever the protocol. */
        TH_SPORT(null),
        /** {@code th dport}. */
        TH_DPORT(null),
        /** {@code iifname}. */
        IIFNAME(null),
        /** {@code oifname}. */
        OIFNAME(null),
        /** {@code meta mark}. */
        MARK(null),
        /** {@code ether saddr}. */
        ETHER_SADDR(null),
        /** {@code ether daddr}. */
        ETHER_DADDR(null);

        private final Family network;

        Field(Family network) {
            this.network = network;
        }
    }

    private final TableFamily family;
    private final List<Expr> exprs = new ArrayList<>();
    /** The network protocol this rule has checked ({@code meta nfproto}/{@code meta protocol}), if any. */
    private Family network;
    /** The transport protocol this rule has checked ({@code meta l4proto}), or -1. */
    private int transport = -1;

    private Exprs(TableFamily family) {
        this.family = Objects.requireNonNull(family, "family");
    }

    /** Expressions for a rule of a table of {@code family}. */
    public static Exprs in(TableFamily family) {
        return new Exprs(family);
    }

    /** The expressions written so far. */
    public List<Expr> toList() {
        return List.copyOf(exprs);
    }

    /** Appends an expression as is. */
    public Exprs add(Expr expr) {
        exprs.add(Objects.requireNonNull(expr, "expr"));
        return this;
    }

    // ---- matches: addresses ------------------------------------------------------------------------------------

    /** {@code ip saddr A} / {@code ip6 saddr A}. */
    public Exprs saddr(InetAddress address) {
        return address(address, bits(address), true, Expr.CmpOp.EQ);
    }

    /** {@code ip daddr A} / {@code ip6 daddr A}. */
    public Exprs daddr(InetAddress address) {
        return address(address, bits(address), false, Expr.CmpOp.EQ);
    }

    /** {@code ip saddr A/P}: the source is in the prefix ({@code address}'s host bits are ignored). */
    public Exprs saddr(InetAddress address, int prefixLength) {
        return address(address, prefixLength, true, Expr.CmpOp.EQ);
    }

    /** {@code ip daddr A/P}. */
    public Exprs daddr(InetAddress address, int prefixLength) {
        return address(address, prefixLength, false, Expr.CmpOp.EQ);
    }

    /** {@code ip saddr != A/P}. */
    public Exprs notSaddr(InetAddress address, int prefixLength) {
        return address(address, prefixLength, true, Expr.CmpOp.NEQ);
    }

    /** {@code ip daddr != A/P}. */
    public Exprs notDaddr(InetAddress address, int prefixLength) {
        return address(address, prefixLength, false, Expr.CmpOp.NEQ);
    }

    /**
     * An address or prefix match as {@code nft} writes it: the whole address, or only the prefix's bytes when it
     * ends on a byte boundary, or the whole address masked by {@code bitwise} otherwise (also for {@code /0}).
     */
    private Exprs address(InetAddress address, int prefixLength, boolean source, Expr.CmpOp op) {
        Objects.requireNonNull(address, "address");
        Family f = address instanceof Inet4Address ? Family.V4 : Family.V6;
        int bits = bits(address);
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " outside 0-" + bits);
        }
        requireNetwork(f);
        int offset = f == Family.V4 ? (source ? 12 : 16) : (source ? 8 : 24);
        byte[] bytes = address.getAddress();
        if (prefixLength == bits) {
            exprs.add(new Expr.Payload(Expr.PayloadBase.NETWORK, offset, bytes.length, Expr.REG_1));
            exprs.add(new Expr.Cmp(op, Expr.REG_1, bytes));
        } else if (prefixLength > 0 && prefixLength % 8 == 0) {
            byte[] prefix = new byte[prefixLength / 8];
            System.arraycopy(bytes, 0, prefix, 0, prefix.length);
            exprs.add(new Expr.Payload(Expr.PayloadBase.NETWORK, offset, prefix.length, Expr.REG_1));
            exprs.add(new Expr.Cmp(op, Expr.REG_1, prefix));
        } else {
            byte[] mask = new byte[bytes.length];
            for (int i = 0; i < prefixLength; i++) {
                mask[i / 8] |= (byte) (0x80 >>> (i % 8));
            }
            byte[] network = new byte[bytes.length];
            for (int i = 0; i < bytes.length; i++) {
                network[i] = (byte) (bytes[i] & mask[i]);
            }
            exprs.add(new Expr.Payload(Expr.PayloadBase.NETWORK, offset, bytes.length, Expr.REG_1));
            exprs.add(new Expr.Bitwise(Expr.REG_1, Expr.REG_1, mask, new byte[bytes.length]));
            exprs.add(new Expr.Cmp(op, Expr.REG_1, network));
        }
        return this;
    }

    private static int bits(InetAddress address) {
        return address instanceof Inet4Address ? 32 : 128;
    }

    /** Checks the network protocol once per rule, as {@code nft} does before a field of the IP header. */
    private void requireNetwork(Family f) {
        switch (family) {
            case IP, IP6 -> {
                if ((family == TableFamily.IP) != (f == Family.V4)) {
                    throw new IllegalArgumentException("an " + family.nftName() + " table cannot match "
                            + (f == Family.V4 ? "IPv4" : "IPv6") + " addresses");
                }
                return;
            }
            case INET, BRIDGE, NETDEV -> {
                if (network == f) {
                    return;
                }
                if (network != null) {
                    throw new IllegalArgumentException("conflicting protocols in one rule: IPv4 and IPv6");
                }
                network = f;
                if (family == TableFamily.INET) {
                    exprs.add(new Expr.Meta(Expr.MetaKey.NFPROTO, Expr.REG_1));
                    exprs.add(new Expr.Cmp(Expr.CmpOp.EQ, Expr.REG_1, new byte[] {(byte) (f == Family.V4
                            ? TableFamily.IP.nfproto() : TableFamily.IP6.nfproto())}));
                } else {
                    int ethertype = f == Family.V4 ? ETH_P_IP : ETH_P_IPV6;
                    exprs.add(new Expr.Meta(Expr.MetaKey.PROTOCOL, Expr.REG_1));
                    exprs.add(new Expr.Cmp(Expr.CmpOp.EQ, Expr.REG_1, new byte[] {(byte) (ethertype >>> 8),
                            (byte) ethertype}));
                }
            }
            default -> throw new IllegalArgumentException("no IP header in an " + family.nftName() + " table");
        }
    }

    // ---- matches: transport ------------------------------------------------------------------------------------

    /** {@code meta l4proto P} ({@code tcp} 6, {@code udp} 17, {@code sctp} 132). */
    public Exprs l4proto(int protocol) {
        requireTransport(protocol);
        return this;
    }

    /** {@code tcp dport N}, {@code udp dport N}, {@code sctp dport N}. */
    public Exprs dport(int protocol, int port) {
        return port(protocol, port, 2);
    }

    /** {@code tcp sport N}, {@code udp sport N}, {@code sctp sport N}. */
    public Exprs sport(int protocol, int port) {
        return port(protocol, port, 0);
    }

    private Exprs port(int protocol, int port, int offset) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port outside 0-65535: " + port);
        }
        requireTransport(protocol);
        exprs.add(new Expr.Payload(Expr.PayloadBase.TRANSPORT, offset, 2, Expr.REG_1));
        exprs.add(new Expr.Cmp(Expr.CmpOp.EQ, Expr.REG_1, new byte[] {(byte) (port >>> 8), (byte) port}));
        return this;
    }

    private void requireTransport(int protocol) {
        if (protocol != TCP && protocol != UDP && protocol != SCTP) {
            throw new IllegalArgumentException("unsupported transport protocol " + protocol + " (tcp, udp, sctp)");
        }
        if (transport == protocol) {
            return;
        }
        if (transport != -1) {
            throw new IllegalArgumentException("conflicting transport protocols in one rule: " + transport + " and "
                    + protocol);
        }
        transport = protocol;
        exprs.add(new Expr.Meta(Expr.MetaKey.L4PROTO, Expr.REG_1));
        exprs.add(new Expr.Cmp(Expr.CmpOp.EQ, Expr.REG_1, new byte[] {(byte) protocol}));
    }

    // ---- matches: interfaces, marks, conntrack, routing ---------------------------------------------------------

    /** {@code iifname "NAME"}. */
    public Exprs iifname(String name) {
        return ifname(Expr.MetaKey.IIFNAME, name, Expr.CmpOp.EQ);
    }

    /** {@code iifname != "NAME"}. */
    public Exprs notIifname(String name) {
        return ifname(Expr.MetaKey.IIFNAME, name, Expr.CmpOp.NEQ);
    }

    /** {@code oifname "NAME"}. */
    public Exprs oifname(String name) {
        return ifname(Expr.MetaKey.OIFNAME, name, Expr.CmpOp.EQ);
    }

    /** {@code oifname != "NAME"}. */
    public Exprs notOifname(String name) {
        return ifname(Expr.MetaKey.OIFNAME, name, Expr.CmpOp.NEQ);
    }

    private Exprs ifname(Expr.MetaKey key, String name, Expr.CmpOp op) {
        exprs.add(new Expr.Meta(key, Expr.REG_1));
        exprs.add(new Expr.Cmp(op, Expr.REG_1, ifname(name)));
        return this;
    }

    /** An interface name as the kernel compares it: {@code IFNAMSIZ} bytes, NUL-padded. */
    static byte[] ifname(String name) {
        Objects.requireNonNull(name, "name");
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length >= IFNAMSIZ || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("interface name must have 1-" + (IFNAMSIZ - 1) + " bytes: " + name);
        }
        byte[] padded = new byte[IFNAMSIZ];
        System.arraycopy(bytes, 0, padded, 0, bytes.length);
        return padded;
    }

    /** {@code meta mark M}. */
    public Exprs mark(int mark) {
        exprs.add(new Expr.Meta(Expr.MetaKey.MARK, Expr.REG_1));
        exprs.add(new Expr.Cmp(Expr.CmpOp.EQ, Expr.REG_1, hostU32(mark)));
        return this;
    }

    /** {@code ct state S[,S...]}: any of the {@code CT_STATE_*} bits. */
    public Exprs ctState(int states) {
        return ctBits(Expr.CtKey.STATE, states);
    }

    /** {@code ct status S[,S...]}: any of the {@code CT_STATUS_*} ({@code IPS_*}) bits. */
    public Exprs ctStatus(int bits) {
        return ctBits(Expr.CtKey.STATUS, bits);
    }

    private Exprs ctBits(Expr.CtKey key, int bits) {
        if (bits == 0) {
            throw new IllegalArgumentException("ct " + key + " needs at least one bit");
        }
        exprs.add(new Expr.Ct(key, Expr.REG_1, -1));
        exprs.add(new Expr.Bitwise(Expr.REG_1, Expr.REG_1, hostU32(bits), new byte[4]));
        exprs.add(new Expr.Cmp(Expr.CmpOp.NEQ, Expr.REG_1, new byte[4]));
        return this;
    }

    /** {@code ct mark M}. */
    public Exprs ctMark(int mark) {
        exprs.add(new Expr.Ct(Expr.CtKey.MARK, Expr.REG_1, -1));
        exprs.add(new Expr.Cmp(Expr.CmpOp.EQ, Expr.REG_1, hostU32(mark)));
        return this;
    }

    /** {@code fib daddr type T} (e.g. {@link #RTN_LOCAL}: the destination is an address of this host). */
    public Exprs fibDaddrType(int routeType) {
        exprs.add(new Expr.Fib(NfTablesH.NFTA_FIB_F_DADDR, Expr.FibResult.ADDRTYPE, Expr.REG_1));
        exprs.add(new Expr.Cmp(Expr.CmpOp.EQ, Expr.REG_1, hostU32(routeType)));
        return this;
    }

    /** {@code ether saddr M} (bridge and netdev tables). */
    public Exprs etherSaddr(MacAddress mac) {
        return ether(mac, 6, Expr.CmpOp.EQ);
    }

    /** {@code ether saddr != M}. */
    public Exprs notEtherSaddr(MacAddress mac) {
        return ether(mac, 6, Expr.CmpOp.NEQ);
    }

    /** {@code ether daddr M}. */
    public Exprs etherDaddr(MacAddress mac) {
        return ether(mac, 0, Expr.CmpOp.EQ);
    }

    private Exprs ether(MacAddress mac, int offset, Expr.CmpOp op) {
        Objects.requireNonNull(mac, "mac");
        requireLinkLayer();
        exprs.add(new Expr.Payload(Expr.PayloadBase.LINK, offset, 6, Expr.REG_1));
        exprs.add(new Expr.Cmp(op, Expr.REG_1, mac.bytes()));
        return this;
    }

    private void requireLinkLayer() {
        if (family != TableFamily.BRIDGE && family != TableFamily.NETDEV) {
            throw new IllegalArgumentException("no Ethernet header in an " + family.nftName() + " table");
        }
    }

    // ---- matches: sets and maps --------------------------------------------------------------------------------

    /** {@code FIELD [. FIELD...] @SET}: the fields' values (concatenated) are an element of the set. */
    public Exprs inSet(String set, Field... fields) {
        return lookup(set, -1, false, fields);
    }

    /** {@code FIELD [. FIELD...] != @SET}. */
    public Exprs notInSet(String set, Field... fields) {
        return lookup(set, -1, true, fields);
    }

    /** {@code FIELD [. FIELD...] vmap @MAP}: the verdict of the element the fields' values find, if any. */
    public Exprs vmap(String map, Field... fields) {
        return lookup(map, Expr.VERDICT, false, fields);
    }

    /**
     * Loads the fields into consecutive registers as {@code nft} does (the first into register 1, each next one into
     * the 4-byte register after the previous value, from {@code NFT_REG32_00}), after their protocol checks.
     */
    private Exprs lookup(String set, int dreg, boolean invert, Field... fields) {
        if (fields.length == 0) {
            throw new IllegalArgumentException("a lookup needs at least one field");
        }
        for (Field f : fields) {
            if (f.network != null) {
                requireNetwork(f.network);
            } else if (f == Field.ETHER_SADDR || f == Field.ETHER_DADDR) {
                requireLinkLayer();
            }
        }
        int words = 0;
        for (int i = 0; i < fields.length; i++) {
            int reg = i == 0 ? Expr.REG_1 : Expr.REG32_00 + words;
            words += (load(fields[i], reg) + 3) / 4;
        }
        exprs.add(new Expr.Lookup(set, Expr.REG_1, dreg, invert));
        return this;
    }

    /** Loads {@code field} into {@code reg}; returns its length. */
    private int load(Field field, int reg) {
        return switch (field) {
            case IP_SADDR -> payload(Expr.PayloadBase.NETWORK, 12, 4, reg);
            case IP_DADDR -> payload(Expr.PayloadBase.NETWORK, 16, 4, reg);
            case IP6_SADDR -> payload(Expr.PayloadBase.NETWORK, 8, 16, reg);
            case IP6_DADDR -> payload(Expr.PayloadBase.NETWORK, 24, 16, reg);
            case TH_SPORT -> payload(Expr.PayloadBase.TRANSPORT, 0, 2, reg);
            case TH_DPORT -> payload(Expr.PayloadBase.TRANSPORT, 2, 2, reg);
            case ETHER_SADDR -> payload(Expr.PayloadBase.LINK, 6, 6, reg);
            case ETHER_DADDR -> payload(Expr.PayloadBase.LINK, 0, 6, reg);
            case L4PROTO -> meta(Expr.MetaKey.L4PROTO, 1, reg);
            case IIFNAME -> meta(Expr.MetaKey.IIFNAME, IFNAMSIZ, reg);
            case OIFNAME -> meta(Expr.MetaKey.OIFNAME, IFNAMSIZ, reg);
            case MARK -> meta(Expr.MetaKey.MARK, 4, reg);
        };
    }

    private int payload(Expr.PayloadBase base, int offset, int length, int reg) {
        exprs.add(new Expr.Payload(base, offset, length, reg));
        return length;
    }

    private int meta(Expr.MetaKey key, int length, int reg) {
        exprs.add(new Expr.Meta(key, reg));
        return length;
    }

    // ---- statements --------------------------------------------------------------------------------------------

    /** {@code counter}. */
    public Exprs counter() {
        exprs.add(new Expr.Counter(0, 0));
        return this;
    }

    /** {@code accept}. */
    public Exprs accept() {
        return verdict(Verdict.ACCEPT);
    }

    /** {@code drop}. */
    public Exprs drop() {
        return verdict(Verdict.DROP);
    }

    /** {@code return}. */
    public Exprs ret() {
        return verdict(Verdict.RETURN);
    }

    /** {@code jump CHAIN}. */
    public Exprs jump(String chain) {
        return verdict(Verdict.jump(chain));
    }

    /** {@code goto CHAIN}. */
    public Exprs goTo(String chain) {
        return verdict(Verdict.goTo(chain));
    }

    /** Any verdict. */
    public Exprs verdict(Verdict verdict) {
        exprs.add(new Expr.ImmediateVerdict(verdict));
        return this;
    }

    /** {@code masquerade}. */
    public Exprs masquerade() {
        exprs.add(new Expr.Masquerade(0, 0, 0));
        return this;
    }

    /** {@code dnat to ADDRESS[:PORT]} ({@code dnat ip to}/{@code dnat ip6 to} in an inet table); port 0: none. */
    public Exprs dnat(InetAddress address, int port) {
        return nat(Expr.NatType.DNAT, address, port);
    }

    /** {@code snat to ADDRESS[:PORT]}; port 0: none. */
    public Exprs snat(InetAddress address, int port) {
        return nat(Expr.NatType.SNAT, address, port);
    }

    private Exprs nat(Expr.NatType type, InetAddress address, int port) {
        Objects.requireNonNull(address, "address");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port outside 0-65535: " + port);
        }
        Family f = address instanceof Inet4Address ? Family.V4 : Family.V6;
        if ((family == TableFamily.IP && f != Family.V4) || (family == TableFamily.IP6 && f != Family.V6)) {
            throw new IllegalArgumentException(type + " to a " + (f == Family.V4 ? "IPv4" : "IPv6")
                    + " address in an " + family.nftName() + " table");
        }
        exprs.add(new Expr.Immediate(Expr.REG_1, address.getAddress()));
        if (port == 0) {
            exprs.add(new Expr.Nat(type, f, Expr.REG_1, 0, 0, 0, 0));
        } else {
            exprs.add(new Expr.Immediate(Expr.REG_2, new byte[] {(byte) (port >>> 8), (byte) port}));
            exprs.add(new Expr.Nat(type, f, Expr.REG_1, 0, Expr.REG_2, 0, NfNatH.NF_NAT_RANGE_PROTO_SPECIFIED));
        }
        return this;
    }

    /** {@code meta mark set M}. */
    public Exprs setMark(int mark) {
        exprs.add(new Expr.Immediate(Expr.REG_1, hostU32(mark)));
        exprs.add(new Expr.MetaSet(Expr.MetaKey.MARK, Expr.REG_1));
        return this;
    }

    /** {@code ct mark set M}. */
    public Exprs setCtMark(int mark) {
        exprs.add(new Expr.Immediate(Expr.REG_1, hostU32(mark)));
        exprs.add(new Expr.CtSet(Expr.CtKey.MARK, Expr.REG_1));
        return this;
    }

    private static byte[] hostU32(int value) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
    }

    private static int ctStateBit(int ctinfo) {
        return 1 << (ctinfo % NfConntrackH.IP_CT_IS_REPLY + 1);
    }
}
