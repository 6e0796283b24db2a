package io.jcni.netlink.internal.wire;

/**
 * One netlink request: its message type, the flags it adds to {@code NLM_F_REQUEST} (and {@code NLM_F_ACK}, which
 * the channel sets on every change), the body written after the {@code nlmsghdr}, and a description for errors.
 *
 * <p>The description is built only when the request fails: {@link #subject()} may format records and numbers freely.
 * Requests are immutable; encoding one twice writes the same bytes.
 */
public abstract class Request {
    private final int type;
    private final int flags;

    protected Request(int type, int flags) {
        this.type = type;
        this.flags = flags;
    }

    /** The {@code nlmsg_type}. */
    public final int type() {
        return type;
    }

    /** Flags beyond {@code NLM_F_REQUEST}/{@code NLM_F_ACK}: {@code NLM_F_CREATE}, {@code NLM_F_DUMP}, ... */
    public final int flags() {
        return flags;
    }

    /** Writes the family header and attributes after the {@code nlmsghdr} the channel has begun. */
    public abstract void encode(MessageWriter w);

    /** What the request is about ({@code "veth0 type veth peer eth1"}), or null; called only on failure. */
    protected abstract String subject();

    /** The C name of the message type, for {@link #describe()}. */
    protected String typeName() {
        return MessageTypes.name(type);
    }

    /**
     * Names the attribute the kernel blamed in an extended ACK ({@code NLMSGERR_ATTR_OFFS}), given the encoded
     * request ({@code messageOffset} is where its {@code nlmsghdr} starts in {@code request}) and the offset the kernel
     * reported, relative to that header. The default names the attribute type found at the offset; protocols with
     * nested attribute trees (nf_tables) name the path.
     */
    public String attributeAt(MessageWriter request, int messageOffset, int offset) {
        int type = Short.toUnsignedInt(request.buffer().getShort(messageOffset + offset + Offsets.RTA_TYPE))
                & NetlinkH.NLA_TYPE_MASK;
        return "attribute type " + type + " at offset " + offset;
    }

    /** {@code "RTM_NEWLINK veth0 type veth peer eth1"}: the type's C name and the subject. */
    public final String describe() {
        String subject = subject();
        return subject == null ? typeName() : typeName() + " " + subject;
    }
}
