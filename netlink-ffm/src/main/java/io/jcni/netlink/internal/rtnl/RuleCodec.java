package io.jcni.netlink.internal.rtnl;

import static io.jcni.netlink.internal.wire.Offsets.FIB_RULE_HDR_ACTION;
import static io.jcni.netlink.internal.wire.Offsets.FIB_RULE_HDR_DST_LEN;
import static io.jcni.netlink.internal.wire.Offsets.FIB_RULE_HDR_FAMILY;
import static io.jcni.netlink.internal.wire.Offsets.FIB_RULE_HDR_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.FIB_RULE_HDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.FIB_RULE_HDR_SRC_LEN;
import static io.jcni.netlink.internal.wire.Offsets.FIB_RULE_HDR_TABLE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;

import io.jcni.netlink.Family;
import io.jcni.netlink.Rule;
import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.FibRulesH;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import io.jcni.netlink.internal.wire.SocketH;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/** Policy routing rule messages ({@code RTM_*RULE}): {@code struct fib_rule_hdr} and {@code FRA_*} attributes. */
public final class RuleCodec {
    private RuleCodec() {}

    /** Writes {@code struct fib_rule_hdr}; tables above 255 go in {@code FRA_TABLE} only, as the byte cannot hold them. */
    public static void header(MessageWriter w, int family, int dstLength, int srcLength, int table, int action,
            int flags) {
        int at = w.reserve(FIB_RULE_HDR_SIZE);
        w.putU8(at + FIB_RULE_HDR_FAMILY, family);
        w.putU8(at + FIB_RULE_HDR_DST_LEN, dstLength);
        w.putU8(at + FIB_RULE_HDR_SRC_LEN, srcLength);
        w.putU8(at + FIB_RULE_HDR_TABLE, table < 256 ? table : RtnetlinkH.RT_TABLE_UNSPEC);
        w.putU8(at + FIB_RULE_HDR_ACTION, action);
        w.putU32(at + FIB_RULE_HDR_FLAGS, flags);
    }

    /**
     * {@code RTM_NEWRULE} and {@code RTM_DELRULE} body. Fields left unset are left out, so a delete matches any value
     * of them (the kernel's {@code rule_find}): a priority of -1, no prefix, no interface.
     */
    public static void rule(MessageWriter w, Rule r) {
        header(w, r.family().af(), r.destinationLength(), r.sourceLength(), r.table(), r.action(),
                r.invert() ? FibRulesH.FIB_RULE_INVERT : 0);
        if (r.destination() != null) {
            w.address(FibRulesH.FRA_DST, r.destination());
        }
        if (r.source() != null) {
            w.address(FibRulesH.FRA_SRC, r.source());
        }
        if (r.priority() >= 0) {
            w.u32(FibRulesH.FRA_PRIORITY, r.priority());
        }
        if (r.table() != 0) {
            w.u32(FibRulesH.FRA_TABLE, r.table());
        }
        if (r.inInterface() != null) {
            w.string(FibRulesH.FRA_IIFNAME, r.inInterface());
        }
        if (r.outInterface() != null) {
            w.string(FibRulesH.FRA_OIFNAME, r.outInterface());
        }
    }

    /** Decodes an {@code RTM_NEWRULE} message of IPv4 or IPv6; null for other families and types. */
    public static Rule decode(ByteBuffer b, int off, int len) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWRULE) {
            return null;
        }
        if (len < NLMSGHDR_SIZE + FIB_RULE_HDR_SIZE) {
            throw new MalformedMessageException("RTM_NEWRULE of " + len + " bytes");
        }
        int body = off + NLMSGHDR_SIZE;
        Family family = Family.ofAf(Byte.toUnsignedInt(b.get(body + FIB_RULE_HDR_FAMILY)));
        if (family == null) {
            return null;
        }
        int dstLength = Byte.toUnsignedInt(b.get(body + FIB_RULE_HDR_DST_LEN));
        int srcLength = Byte.toUnsignedInt(b.get(body + FIB_RULE_HDR_SRC_LEN));
        int table = Byte.toUnsignedInt(b.get(body + FIB_RULE_HDR_TABLE));
        int action = Byte.toUnsignedInt(b.get(body + FIB_RULE_HDR_ACTION));
        boolean invert = (b.getInt(body + FIB_RULE_HDR_FLAGS) & FibRulesH.FIB_RULE_INVERT) != 0;
        InetAddress dst = null;
        InetAddress src = null;
        int priority = 0;
        String iif = null;
        String oif = null;
        AttrCursor c = new AttrCursor(b, body + MessageWriter.align(FIB_RULE_HDR_SIZE), off + len);
        while (c.next()) {
            switch (c.type()) {
                case FibRulesH.FRA_DST -> dst = c.address();
                case FibRulesH.FRA_SRC -> src = c.address();
                case FibRulesH.FRA_PRIORITY -> priority = c.u32();
                case FibRulesH.FRA_TABLE -> table = c.u32();
                case FibRulesH.FRA_IIFNAME -> iif = c.string();
                case FibRulesH.FRA_OIFNAME -> oif = c.string();
                default -> { }
            }
        }
        return new Rule(family, priority, table, src, src == null ? 0 : srcLength, dst, dst == null ? 0 : dstLength,
                iif, oif, action, invert);
    }

    /** The rules of one family, or of both (null); a class, not a lambda (start-up cost on the exec path). */
    record Decoder(Family family) implements Channel.Decoder<Rule> {
        @Override
        public Rule decode(ByteBuffer buf, int offset, int length) {
            Rule r = RuleCodec.decode(buf, offset, length);
            return r == null || (family != null && r.family() != family) ? null : r;
        }
    }

    /** {@code RTM_GETRULE} dump: the header with the family only, as the kernel's strict check demands. */
    static final class DumpRequest extends Request {
        private final Family family;

        DumpRequest(Family family) {
            super(RtnetlinkH.RTM_GETRULE, 0);
            this.family = family;
        }

        @Override
        public void encode(MessageWriter w) {
            header(w, family == null ? SocketH.AF_UNSPEC : family.af(), 0, 0, 0, 0, 0);
        }

        @Override
        protected String subject() {
            return family == null ? null : family.toString();
        }
    }
}
