package io.jcni.netlink.internal.rtnl;

import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;
import static io.jcni.netlink.internal.wire.Offsets.TCMSG_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.TCM_FAMILY;
import static io.jcni.netlink.internal.wire.Offsets.TCM_HANDLE;
import static io.jcni.netlink.internal.wire.Offsets.TCM_IFINDEX;
import static io.jcni.netlink.internal.wire.Offsets.TCM_INFO;
import static io.jcni.netlink.internal.wire.Offsets.TCM_PARENT;

import io.jcni.netlink.Filter;
import io.jcni.netlink.FilterInfo;
import io.jcni.netlink.Qdisc;
import io.jcni.netlink.QdiscInfo;
import io.jcni.netlink.TcAction;
import io.jcni.netlink.TcClock;
import io.jcni.netlink.TcHandle;
import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.Offsets;
import io.jcni.netlink.internal.wire.PktClsH;
import io.jcni.netlink.internal.wire.PktSchedH;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import io.jcni.netlink.internal.wire.SocketH;
import io.jcni.netlink.internal.wire.TcMirredH;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Traffic control messages ({@code RTM_*QDISC}, {@code RTM_*TFILTER}): {@code struct tcmsg} and {@code TCA_*}
 * attributes ({@code <linux/rtnetlink.h>}), the token bucket filter's options and rate table
 * ({@code <linux/pkt_sched.h>}), the u32 classifier and actions ({@code <linux/pkt_cls.h>}), and mirred
 * ({@code <linux/tc_act/tc_mirred.h>}).
 */
public final class TcCodec {
    private TcCodec() {}

    /** {@code tc_calc_rtable}'s default MTU when none is given: 2047 bytes. */
    static final int RTAB_DEFAULT_MTU = 2047;

    /** Writes {@code struct tcmsg}. */
    public static void tcmsg(MessageWriter w, int index, int handle, int parent, int info) {
        int at = w.reserve(TCMSG_SIZE);
        w.putU8(at + TCM_FAMILY, SocketH.AF_UNSPEC);
        w.putU32(at + TCM_IFINDEX, index);
        w.putU32(at + TCM_HANDLE, handle);
        w.putU32(at + TCM_PARENT, parent);
        w.putU32(at + TCM_INFO, info);
    }

    // ---- qdiscs ------------------------------------------------------------------------------------------------

    /** {@code RTM_NEWQDISC} body: the header, {@code TCA_KIND} and the kind's options; a null clock is the kernel's. */
    public static void newQdisc(MessageWriter w, Qdisc q, TcClock clock) {
        tcmsg(w, q.index(), q.handle(), q.parent(), 0);
        w.string(RtnetlinkH.TCA_KIND, q.kind());
        // instanceof rather than a type switch: a pattern switch bootstraps SwitchBootstraps on first use
        QdiscInfo info = q.info();
        if (info instanceof QdiscInfo.Tbf tbf) {
            tbf(w, tbf, clock != null || tbf.linkLayer() == QdiscInfo.Tbf.LINKLAYER_UNAWARE ? clock : TcClock.system());
        } else if (info instanceof QdiscInfo.Ingress) {
            w.flag(RtnetlinkH.TCA_OPTIONS); // empty, as tc and Go send it
        } else if (!(info instanceof QdiscInfo.Clsact)) {
            throw new IllegalArgumentException("cannot create a " + q.kind()
                    + " qdisc: only tbf, ingress and clsact are supported");
        }
    }

    /**
     * {@code TCA_OPTIONS { TCA_TBF_PARMS, [TCA_TBF_BURST], [TCA_TBF_RATE64], [TCA_TBF_RTAB] }} in {@code tc}'s order.
     * With an Ethernet link layer the rate spec carries {@code tc_calc_rtable}'s cell size and alignment and the
     * 256-entry rate table follows, as {@code tc} sends them.
     */
    static void tbf(MessageWriter w, QdiscInfo.Tbf tbf, TcClock clock) {
        boolean table = tbf.linkLayer() != QdiscInfo.Tbf.LINKLAYER_UNAWARE;
        if (table && tbf.linkLayer() != QdiscInfo.Tbf.LINKLAYER_ETHERNET) {
            throw new IllegalArgumentException("tbf rate tables are computed for Ethernet only, not link layer "
                    + tbf.linkLayer());
        }
        long rate32 = Math.min(tbf.rate(), 0xFFFFFFFFL);
        int cellLog = table ? cellLog(RTAB_DEFAULT_MTU) : 0;
        int options = w.nest(RtnetlinkH.TCA_OPTIONS);
        byte[] qopt = new byte[Offsets.TC_TBF_QOPT_SIZE];
        ByteBuffer b = ByteBuffer.wrap(qopt).order(ByteOrder.nativeOrder());
        int rate = Offsets.TC_TBF_QOPT_RATE;
        if (table) {
            b.put(rate + Offsets.TC_RATESPEC_CELL_LOG, (byte) cellLog);
            b.put(rate + Offsets.TC_RATESPEC_LINKLAYER, (byte) tbf.linkLayer());
            b.putShort(rate + Offsets.TC_RATESPEC_CELL_ALIGN, (short) -1);
        }
        b.putShort(rate + Offsets.TC_RATESPEC_MPU, (short) tbf.mpu());
        b.putInt(rate + Offsets.TC_RATESPEC_RATE, (int) rate32);
        b.putInt(Offsets.TC_TBF_QOPT_LIMIT, tbf.limit());
        b.putInt(Offsets.TC_TBF_QOPT_BUFFER, tbf.buffer());
        w.bytes(PktSchedH.TCA_TBF_PARMS, qopt);
        if (tbf.burst() != 0) {
            w.u32(PktSchedH.TCA_TBF_BURST, tbf.burst());
        }
        if (tbf.rate() >= 1L << 32) {
            w.bytes(PktSchedH.TCA_TBF_RATE64, u64(tbf.rate()));
        }
        if (table) {
            w.bytes(PktSchedH.TCA_TBF_RTAB, rateTable(rate32, tbf.mpu(), cellLog, clock));
        }
        w.endNest(options);
    }

    /** {@code tc_calc_rtable}'s cell size: the smallest {@code cell_log} with {@code mtu >> cell_log <= 255}. */
    static int cellLog(int mtu) {
        int cellLog = 0;
        while ((mtu >> cellLog) > 255) {
            cellLog++;
        }
        return cellLog;
    }

    /**
     * {@code tc_calc_rtable} for Ethernet: entry {@code i} is the ticks to send {@code (i + 1) << cellLog} bytes (at
     * least {@code mpu}) at {@code rate}, as {@code tc_calc_xmittime}; 256 native-order 32-bit words.
     */
    public static byte[] rateTable(long rate, int mpu, int cellLog, TcClock clock) {
        byte[] rtab = new byte[PktSchedH.TC_RTAB_SIZE];
        ByteBuffer b = ByteBuffer.wrap(rtab).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 256; i++) {
            long size = Math.max((long) (i + 1) << cellLog, mpu);
            b.putInt(4 * i, (int) clock.xmitTime(rate, size));
        }
        return rtab;
    }

    private static byte[] u64(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value).array();
    }

    /** Decodes an {@code RTM_NEWQDISC} message; null for other types and for links other than {@code index} (0: any). */
    public static Qdisc decodeQdisc(ByteBuffer b, int off, int len, int index) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWQDISC) {
            return null;
        }
        if (len < NLMSGHDR_SIZE + TCMSG_SIZE) {
            throw new MalformedMessageException("RTM_NEWQDISC of " + len + " bytes");
        }
        int body = off + NLMSGHDR_SIZE;
        int ifindex = b.getInt(body + TCM_IFINDEX);
        if (index != 0 && ifindex != index) {
            return null;
        }
        String kind = null;
        AttrCursor options = null;
        AttrCursor c = new AttrCursor(b, body + MessageWriter.align(TCMSG_SIZE), off + len);
        while (c.next()) {
            switch (c.type()) {
                case RtnetlinkH.TCA_KIND -> kind = c.string();
                case RtnetlinkH.TCA_OPTIONS -> options = c.nested();
                default -> { }
            }
        }
        if (kind == null) {
            throw new MalformedMessageException("RTM_NEWQDISC without TCA_KIND");
        }
        QdiscInfo info = switch (kind) {
            case "tbf" -> decodeTbf(b, options);
            case "ingress" -> new QdiscInfo.Ingress();
            case "clsact" -> new QdiscInfo.Clsact();
            default -> new QdiscInfo.Other(kind);
        };
        return new Qdisc(ifindex, b.getInt(body + TCM_HANDLE), b.getInt(body + TCM_PARENT), info);
    }

    private static QdiscInfo.Tbf decodeTbf(ByteBuffer b, AttrCursor options) {
        long rate = 0;
        long rate64 = 0;
        int limit = 0;
        int buffer = 0;
        int mpu = 0;
        int linkLayer = 0;
        boolean parms = false;
        while (options != null && options.next()) {
            if (options.type() == PktSchedH.TCA_TBF_PARMS && options.payloadLength() >= Offsets.TC_TBF_QOPT_SIZE) {
                int at = options.payloadOffset();
                int spec = at + Offsets.TC_TBF_QOPT_RATE;
                rate = Integer.toUnsignedLong(b.getInt(spec + Offsets.TC_RATESPEC_RATE));
                mpu = Short.toUnsignedInt(b.getShort(spec + Offsets.TC_RATESPEC_MPU));
                linkLayer = b.get(spec + Offsets.TC_RATESPEC_LINKLAYER) & PktSchedH.TC_LINKLAYER_MASK;
                limit = b.getInt(at + Offsets.TC_TBF_QOPT_LIMIT);
                buffer = b.getInt(at + Offsets.TC_TBF_QOPT_BUFFER);
                parms = true;
            } else if (options.type() == PktSchedH.TCA_TBF_RATE64 && options.payloadLength() >= 8) {
                rate64 = b.getLong(options.payloadOffset());
            }
        }
        if (!parms) {
            throw new MalformedMessageException("tbf qdisc without TCA_TBF_PARMS");
        }
        return new QdiscInfo.Tbf(rate64 != 0 ? rate64 : rate, limit, buffer, 0, mpu,
                linkLayer <= PktSchedH.TC_LINKLAYER_ATM ? linkLayer : PktSchedH.TC_LINKLAYER_UNAWARE);
    }

    // ---- filters -----------------------------------------------------------------------------------------------

    /** {@code tcm_info} of a filter: {@code TC_H_MAKE(prio << 16, htons(protocol))}. */
    static int filterInfo(int priority, int protocol) {
        return (priority << 16) | Short.toUnsignedInt(Short.reverseBytes((short) protocol));
    }

    /**
     * {@code RTM_NEWTFILTER} body, in the Go netlink library's order: {@code TCA_KIND}, then
     * {@code TCA_OPTIONS { TCA_U32_SEL, [TCA_U32_CLASSID], TCA_U32_ACT { 1: action, 2: action, ... } }}.
     */
    public static void newFilter(MessageWriter w, Filter f) {
        tcmsg(w, f.index(), f.handle(), f.parent(), filterInfo(f.priority(), f.protocol()));
        w.string(RtnetlinkH.TCA_KIND, f.kind());
        if (!(f.info() instanceof FilterInfo.U32 u32)) {
            throw new IllegalArgumentException("cannot create a " + f.kind() + " filter: only u32 is supported");
        }
        if (u32.divisor() != 0) {
            throw new IllegalArgumentException("u32 hash tables are not supported: divisor " + u32.divisor());
        }
        int options = w.nest(RtnetlinkH.TCA_OPTIONS);
        w.bytes(PktClsH.TCA_U32_SEL, selector(u32.keys()));
        if (u32.classId() != 0) {
            w.u32(PktClsH.TCA_U32_CLASSID, u32.classId());
        }
        int actions = w.nest(PktClsH.TCA_U32_ACT);
        int order = RtnetlinkH.TCA_ACT_TAB;
        for (TcAction a : u32.actions()) {
            int entry = w.nest(order++);
            w.string(PktClsH.TCA_ACT_KIND, a.kind());
            int actionOptions = w.nest(PktClsH.TCA_ACT_OPTIONS);
            if (!(a instanceof TcAction.Mirred m)) {
                throw new IllegalArgumentException("cannot create a " + a.kind() + " action: only mirred is supported");
            }
            w.bytes(TcMirredH.TCA_MIRRED_PARMS, mirred(m));
            w.endNest(actionOptions);
            w.endNest(entry);
        }
        w.endNest(actions);
        w.endNest(options);
    }

    /** {@code struct tc_u32_sel} followed by its keys; a terminal selector ({@code TC_U32_TERMINAL}). */
    static byte[] selector(List<FilterInfo.U32Key> keys) {
        byte[] sel = new byte[Offsets.TC_U32_SEL_SIZE + keys.size() * Offsets.TC_U32_KEY_SIZE];
        ByteBuffer b = ByteBuffer.wrap(sel).order(ByteOrder.nativeOrder());
        b.put(Offsets.TC_U32_SEL_FLAGS, (byte) PktClsH.TC_U32_TERMINAL);
        b.put(Offsets.TC_U32_SEL_NKEYS, (byte) keys.size());
        int at = Offsets.TC_U32_SEL_SIZE;
        for (FilterInfo.U32Key k : keys) {
            b.order(ByteOrder.BIG_ENDIAN); // __be32 mask and val
            b.putInt(at + Offsets.TC_U32_KEY_MASK, k.mask());
            b.putInt(at + Offsets.TC_U32_KEY_VAL, k.value());
            b.order(ByteOrder.nativeOrder());
            b.putInt(at + Offsets.TC_U32_KEY_OFF, k.offset());
            b.putInt(at + Offsets.TC_U32_KEY_OFFMASK, k.offsetMask());
            at += Offsets.TC_U32_KEY_SIZE;
        }
        return sel;
    }

    /** {@code struct tc_mirred}: the verdict in {@code tc_gen.action}, the direction and the target. */
    static byte[] mirred(TcAction.Mirred m) {
        byte[] parms = new byte[Offsets.TC_MIRRED_SIZE];
        ByteBuffer b = ByteBuffer.wrap(parms).order(ByteOrder.nativeOrder());
        b.putInt(Offsets.TC_MIRRED_ACTION, m.verdict());
        b.putInt(Offsets.TC_MIRRED_EACTION, m.direction());
        b.putInt(Offsets.TC_MIRRED_IFINDEX, m.ifindex());
        return parms;
    }

    /**
     * Decodes an {@code RTM_NEWTFILTER} message of link {@code index}; null for other types and links. u32 nodes
     * without a selector (the priority's entry, hash tables) decode with no keys.
     */
    public static Filter decodeFilter(ByteBuffer b, int off, int len, int index) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWTFILTER) {
            return null;
        }
        if (len < NLMSGHDR_SIZE + TCMSG_SIZE) {
            throw new MalformedMessageException("RTM_NEWTFILTER of " + len + " bytes");
        }
        int body = off + NLMSGHDR_SIZE;
        int ifindex = b.getInt(body + TCM_IFINDEX);
        if (index != 0 && ifindex != index) {
            return null;
        }
        int info = b.getInt(body + TCM_INFO);
        String kind = null;
        AttrCursor options = null;
        AttrCursor c = new AttrCursor(b, body + MessageWriter.align(TCMSG_SIZE), off + len);
        while (c.next()) {
            switch (c.type()) {
                case RtnetlinkH.TCA_KIND -> kind = c.string();
                case RtnetlinkH.TCA_OPTIONS -> options = c.nested();
                default -> { }
            }
        }
        if (kind == null) {
            throw new MalformedMessageException("RTM_NEWTFILTER without TCA_KIND");
        }
        FilterInfo filterInfo = kind.equals("u32") ? decodeU32(b, options) : new FilterInfo.Other(kind);
        int protocol = Short.toUnsignedInt(Short.reverseBytes((short) info));
        return new Filter(ifindex, b.getInt(body + TCM_PARENT), b.getInt(body + TCM_HANDLE), info >>> 16, protocol,
                filterInfo);
    }

    private static FilterInfo.U32 decodeU32(ByteBuffer b, AttrCursor options) {
        int classId = 0;
        int divisor = 0;
        List<FilterInfo.U32Key> keys = List.of();
        List<TcAction> actions = List.of();
        while (options != null && options.next()) {
            switch (options.type()) {
                case PktClsH.TCA_U32_CLASSID -> classId = options.u32();
                case PktClsH.TCA_U32_DIVISOR -> divisor = options.u32();
                case PktClsH.TCA_U32_SEL -> keys = decodeKeys(b, options.payloadOffset(), options.payloadLength());
                case PktClsH.TCA_U32_ACT -> actions = decodeActions(b, options.nested());
                default -> { }
            }
        }
        return new FilterInfo.U32(classId, keys, actions, divisor);
    }

    private static List<FilterInfo.U32Key> decodeKeys(ByteBuffer b, int at, int length) {
        if (length < Offsets.TC_U32_SEL_SIZE) {
            throw new MalformedMessageException("TCA_U32_SEL of " + length + " bytes");
        }
        int n = Byte.toUnsignedInt(b.get(at + Offsets.TC_U32_SEL_NKEYS));
        if (Offsets.TC_U32_SEL_SIZE + n * Offsets.TC_U32_KEY_SIZE > length) {
            throw new MalformedMessageException("TCA_U32_SEL of " + length + " bytes with " + n + " keys");
        }
        List<FilterInfo.U32Key> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int k = at + Offsets.TC_U32_SEL_SIZE + i * Offsets.TC_U32_KEY_SIZE;
            int mask = be32(b, k + Offsets.TC_U32_KEY_MASK);
            int value = be32(b, k + Offsets.TC_U32_KEY_VAL);
            keys.add(new FilterInfo.U32Key(value & mask, mask, b.getInt(k + Offsets.TC_U32_KEY_OFF),
                    b.getInt(k + Offsets.TC_U32_KEY_OFFMASK)));
        }
        return keys;
    }

    private static int be32(ByteBuffer b, int at) {
        int raw = b.getInt(at);
        return b.order() == ByteOrder.BIG_ENDIAN ? raw : Integer.reverseBytes(raw);
    }

    /** The entries of an action list ({@code TCA_ACT_TAB} 1, 2, ...), in order. */
    private static List<TcAction> decodeActions(ByteBuffer b, AttrCursor list) {
        List<TcAction> actions = new ArrayList<>();
        while (list.next()) {
            AttrCursor a = list.nested();
            String kind = null;
            AttrCursor options = null;
            while (a.next()) {
                switch (a.type()) {
                    case PktClsH.TCA_ACT_KIND -> kind = a.string();
                    case PktClsH.TCA_ACT_OPTIONS -> options = a.nested();
                    default -> { }
                }
            }
            if (kind == null) {
                throw new MalformedMessageException("action without TCA_ACT_KIND");
            }
            TcAction action = new TcAction.Other(kind);
            if (kind.equals("mirred")) {
                while (options != null && options.next()) {
                    if (options.type() == TcMirredH.TCA_MIRRED_PARMS
                            && options.payloadLength() >= Offsets.TC_MIRRED_SIZE) {
                        int at = options.payloadOffset();
                        action = new TcAction.Mirred(b.getInt(at + Offsets.TC_MIRRED_EACTION),
                                b.getInt(at + Offsets.TC_MIRRED_IFINDEX), b.getInt(at + Offsets.TC_MIRRED_ACTION));
                    }
                }
            }
            actions.add(action);
        }
        return actions;
    }

    /** {@code "dev 3 parent root handle 1:"}: a qdisc's place, for error messages. */
    static String qdiscRef(int index, int parent, int handle) {
        return "dev " + index + " parent " + TcHandle.format(parent)
                + (handle == 0 ? "" : " handle " + TcHandle.format(handle));
    }

    // ---- reads: requests and decoders as classes, not lambdas (start-up cost on the exec path) -------------------

    /** The qdiscs of one link (0: every link). */
    record QdiscDecoder(int index) implements Channel.Decoder<Qdisc> {
        @Override
        public Qdisc decode(ByteBuffer buf, int offset, int length) {
            return decodeQdisc(buf, offset, length, index);
        }
    }

    /** The filters of one link. */
    record FilterDecoder(int index) implements Channel.Decoder<Filter> {
        @Override
        public Filter decode(ByteBuffer buf, int offset, int length) {
            return decodeFilter(buf, offset, length, index);
        }
    }

    /**
     * A dump request ({@code RTM_GETQDISC} or {@code RTM_GETTFILTER}): {@code tcmsg} with the link (0: every link) and,
     * for filters, the parent.
     */
    static final class DumpRequest extends Request {
        private final int index;
        private final int parent;

        DumpRequest(int type, int index, int parent) {
            super(type, 0);
            this.index = index;
            this.parent = parent;
        }

        @Override
        public void encode(MessageWriter w) {
            tcmsg(w, index, 0, parent, 0);
        }

        @Override
        protected String subject() {
            if (index == 0) {
                return null;
            }
            return type() == RtnetlinkH.RTM_GETQDISC ? "dev " + index : "dev " + index + " parent "
                    + TcHandle.format(parent);
        }
    }
}
