package io.jcni.netlink.internal.rtnl;

import static io.jcni.netlink.internal.wire.Offsets.NDMSG_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NDM_FAMILY;
import static io.jcni.netlink.internal.wire.Offsets.NDM_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.NDM_IFINDEX;
import static io.jcni.netlink.internal.wire.Offsets.NDM_STATE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;

import io.jcni.netlink.Family;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.Neighbor;
import io.jcni.netlink.NeighborState;
import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NeighbourH;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/** {@code RTM_*NEIGH} messages: {@code struct ndmsg} and {@code NDA_*} attributes. */
public final class NeighborCodec {
    private NeighborCodec() {}

    /** Writes {@code struct ndmsg}. */
    public static void ndmsg(MessageWriter w, int family, int index, int state, int flags) {
        int at = w.reserve(NDMSG_SIZE);
        w.putU8(at + NDM_FAMILY, family);
        w.putU32(at + NDM_IFINDEX, index);
        w.putU16(at + NDM_STATE, state);
        w.putU8(at + NDM_FLAGS, flags);
    }

    /** {@code RTM_NEWNEIGH} body. */
    public static void newNeighbor(MessageWriter w, Neighbor n) {
        ndmsg(w, n.family().af(), n.index(), n.state().value(), n.flags());
        w.address(NeighbourH.NDA_DST, n.address());
        if (n.mac() != null) {
            w.bytes(NeighbourH.NDA_LLADDR, n.mac().bytes());
        }
    }

    /** {@code RTM_DELNEIGH} body. */
    public static void deleteNeighbor(MessageWriter w, int index, InetAddress address) {
        ndmsg(w, Family.of(address).af(), index, 0, 0);
        w.address(NeighbourH.NDA_DST, address);
    }

    /** Decodes an {@code RTM_NEWNEIGH} message of IPv4/IPv6; null for others and for entries without address. */
    public static Neighbor decode(ByteBuffer b, int off, int len) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWNEIGH) {
            return null;
        }
        if (len < NLMSGHDR_SIZE + NDMSG_SIZE) {
            throw new MalformedMessageException("RTM_NEWNEIGH of " + len + " bytes");
        }
        int body = off + NLMSGHDR_SIZE;
        if (Family.ofAf(Byte.toUnsignedInt(b.get(body + NDM_FAMILY))) == null) {
            return null;
        }
        int index = b.getInt(body + NDM_IFINDEX);
        int state = Short.toUnsignedInt(b.getShort(body + NDM_STATE));
        int flags = Byte.toUnsignedInt(b.get(body + NDM_FLAGS));
        InetAddress address = null;
        MacAddress mac = null;
        AttrCursor c = new AttrCursor(b, body + MessageWriter.align(NDMSG_SIZE), off + len);
        while (c.next()) {
            switch (c.type()) {
                case NeighbourH.NDA_DST -> address = c.address();
                case NeighbourH.NDA_LLADDR -> mac = c.payloadLength() == 0 ? null : new MacAddress(c.bytes());
                default -> { }
            }
        }
        return address == null ? null : new Neighbor(index, address, mac, NeighborState.of(state), flags);
    }
}
