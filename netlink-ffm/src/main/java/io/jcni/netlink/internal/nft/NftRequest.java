package io.jcni.netlink.internal.nft;

import static io.jcni.netlink.internal.wire.Offsets.NFGENMSG_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.RTA_LEN;
import static io.jcni.netlink.internal.wire.Offsets.RTA_TYPE;

import io.jcni.netlink.internal.wire.MessageTypes;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.internal.wire.NfnetlinkH;
import io.jcni.netlink.internal.wire.Offsets;
import io.jcni.netlink.internal.wire.Request;
import java.nio.ByteBuffer;

/**
 * One nf_tables message: {@code nlmsghdr} of type {@code NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_*}, {@code nfgenmsg}
 * with the table family ({@code NFPROTO_*}), version 0 and {@code res_id} 0, then the attributes written by the
 * subclass. Errors name the message ({@code NFT_MSG_NEWRULE inet t c1}) and the attribute the kernel blamed by its C
 * name, following nests into expressions ({@code NFTA_RULE_EXPRESSIONS, expression 2 (payload), attribute 3}).
 */
abstract class NftRequest extends Request {
    private static final String[] TABLE = {null, "NFTA_TABLE_NAME", "NFTA_TABLE_FLAGS", "NFTA_TABLE_USE",
        "NFTA_TABLE_HANDLE", "NFTA_TABLE_PAD", "NFTA_TABLE_USERDATA", "NFTA_TABLE_OWNER"};
    private static final String[] CHAIN = {null, "NFTA_CHAIN_TABLE", "NFTA_CHAIN_HANDLE", "NFTA_CHAIN_NAME",
        "NFTA_CHAIN_HOOK", "NFTA_CHAIN_POLICY", "NFTA_CHAIN_USE", "NFTA_CHAIN_TYPE", "NFTA_CHAIN_COUNTERS",
        "NFTA_CHAIN_PAD", "NFTA_CHAIN_FLAGS", "NFTA_CHAIN_ID", "NFTA_CHAIN_USERDATA"};
    private static final String[] RULE = {null, "NFTA_RULE_TABLE", "NFTA_RULE_CHAIN", "NFTA_RULE_HANDLE",
        "NFTA_RULE_EXPRESSIONS", "NFTA_RULE_COMPAT", "NFTA_RULE_POSITION", "NFTA_RULE_USERDATA", "NFTA_RULE_PAD",
        "NFTA_RULE_ID", "NFTA_RULE_POSITION_ID", "NFTA_RULE_CHAIN_ID"};
    private static final String[] SET = {null, "NFTA_SET_TABLE", "NFTA_SET_NAME", "NFTA_SET_FLAGS",
        "NFTA_SET_KEY_TYPE", "NFTA_SET_KEY_LEN", "NFTA_SET_DATA_TYPE", "NFTA_SET_DATA_LEN", "NFTA_SET_POLICY",
        "NFTA_SET_DESC", "NFTA_SET_ID", "NFTA_SET_TIMEOUT", "NFTA_SET_GC_INTERVAL", "NFTA_SET_USERDATA",
        "NFTA_SET_PAD", "NFTA_SET_OBJ_TYPE", "NFTA_SET_HANDLE", "NFTA_SET_EXPR", "NFTA_SET_EXPRESSIONS"};
    private static final String[] SETELEM_LIST = {null, "NFTA_SET_ELEM_LIST_TABLE", "NFTA_SET_ELEM_LIST_SET",
        "NFTA_SET_ELEM_LIST_ELEMENTS", "NFTA_SET_ELEM_LIST_SET_ID"};

    private final int nfproto;
    private final String subject;

    /**
     * @param msg the {@code NFT_MSG_*} number
     * @param flags {@code NLM_F_CREATE}, {@code NLM_F_APPEND}, ...
     * @param nfproto the {@code nfgen_family}
     * @param subject names the object in errors ({@code "inet t c1"})
     */
    NftRequest(int msg, int flags, int nfproto, String subject) {
        super(MessageTypes.nftables(msg), flags);
        this.nfproto = nfproto;
        this.subject = subject;
    }

    /** The attributes after {@code nfgenmsg}. */
    abstract void attributes(MessageWriter w);

    @Override
    public final void encode(MessageWriter w) {
        int at = w.reserve(NFGENMSG_SIZE);
        w.putU8(at + Offsets.NFGEN_FAMILY, nfproto);
        w.putU8(at + Offsets.NFGENMSG_VERSION, NfnetlinkH.NFNETLINK_V0);
        w.putU16be(at + Offsets.RES_ID, 0);
        attributes(w);
    }

    @Override
    protected String subject() {
        return subject;
    }

    @Override
    public String attributeAt(MessageWriter request, int messageOffset, int offset) {
        ByteBuffer b = request.buffer();
        int end = messageOffset + b.getInt(messageOffset + Offsets.NLMSG_LEN);
        int target = messageOffset + offset;
        int at = find(b, messageOffset + NLMSGHDR_SIZE + NFGENMSG_SIZE, end, target);
        if (at < 0) {
            return super.attributeAt(request, messageOffset, offset);
        }
        int type = type(b, at);
        String[] names = names(type() & 0xff);
        StringBuilder sb = new StringBuilder(type < names.length && names[type] != null ? names[type]
                : "attribute " + type);
        if (at != target && type == NfTablesH.NFTA_RULE_EXPRESSIONS && names == RULE) {
            expression(b, at, target, sb);
        } else if (at != target) {
            int inner = find(b, at + 4, at + len(b, at), target);
            if (inner >= 0) {
                sb.append(", attribute ").append(type(b, inner));
            }
        }
        return sb.append(" at offset ").append(offset).toString();
    }

    /** Appends which expression of the list at {@code list} holds {@code target}, and which of its attributes. */
    private static void expression(ByteBuffer b, int list, int target, StringBuilder sb) {
        int index = 0;
        for (int elem = list + 4; elem + 4 <= list + len(b, list); elem += MessageWriter.align(len(b, elem))) {
            index++;
            if (target < elem || target >= elem + len(b, elem)) {
                continue;
            }
            sb.append(", expression ").append(index);
            for (int a = elem + 4; a + 4 <= elem + len(b, elem); a += MessageWriter.align(len(b, a))) {
                if (type(b, a) == NfTablesH.NFTA_EXPR_NAME) {
                    int n = 0;
                    while (n < len(b, a) - 4 && b.get(a + 4 + n) != 0) {
                        n++;
                    }
                    byte[] name = new byte[n];
                    b.get(a + 4, name);
                    sb.append(" (").append(new String(name, java.nio.charset.StandardCharsets.UTF_8)).append(')');
                } else if (type(b, a) == NfTablesH.NFTA_EXPR_DATA) {
                    int inner = find(b, a + 4, a + len(b, a), target);
                    if (inner >= 0) {
                        sb.append(", attribute ").append(type(b, inner));
                    }
                }
            }
            return;
        }
    }

    /** The attribute in {@code [start, end)} that contains {@code target}, or -1. */
    private static int find(ByteBuffer b, int start, int end, int target) {
        for (int a = start; a + 4 <= end; ) {
            int len = len(b, a);
            if (len < 4) {
                return -1;
            }
            if (target >= a && target < a + len) {
                return a;
            }
            a += MessageWriter.align(len);
        }
        return -1;
    }

    private static int len(ByteBuffer b, int at) {
        return Short.toUnsignedInt(b.getShort(at + RTA_LEN));
    }

    private static int type(ByteBuffer b, int at) {
        return Short.toUnsignedInt(b.getShort(at + RTA_TYPE)) & NetlinkH.NLA_TYPE_MASK;
    }

    private static String[] names(int msg) {
        return switch (msg) {
            case NfTablesH.NFT_MSG_NEWTABLE, NfTablesH.NFT_MSG_GETTABLE, NfTablesH.NFT_MSG_DELTABLE -> TABLE;
            case NfTablesH.NFT_MSG_NEWCHAIN, NfTablesH.NFT_MSG_GETCHAIN, NfTablesH.NFT_MSG_DELCHAIN -> CHAIN;
            case NfTablesH.NFT_MSG_NEWRULE, NfTablesH.NFT_MSG_GETRULE, NfTablesH.NFT_MSG_DELRULE -> RULE;
            case NfTablesH.NFT_MSG_NEWSET, NfTablesH.NFT_MSG_GETSET, NfTablesH.NFT_MSG_DELSET -> SET;
            default -> SETELEM_LIST;
        };
    }
}
