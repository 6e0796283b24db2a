package io.jcni.netlink.internal.rtnl;

import static io.jcni.netlink.internal.wire.Offsets.IFADDRMSG_IFA_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.IFADDRMSG_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.IFA_CACHEINFO_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.IFA_FAMILY;
import static io.jcni.netlink.internal.wire.Offsets.IFA_INDEX;
import static io.jcni.netlink.internal.wire.Offsets.IFA_PREFERED;
import static io.jcni.netlink.internal.wire.Offsets.IFA_PREFIXLEN;
import static io.jcni.netlink.internal.wire.Offsets.IFA_SCOPE;
import static io.jcni.netlink.internal.wire.Offsets.IFA_VALID;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;

import io.jcni.netlink.Address;
import io.jcni.netlink.AddressFlag;
import io.jcni.netlink.Family;
import io.jcni.netlink.Scope;
import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.IfAddrH;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** {@code RTM_*ADDR} messages: {@code struct ifaddrmsg} and {@code IFA_*} attributes. */
public final class AddressCodec {
    private AddressCodec() {}

    /** Writes {@code struct ifaddrmsg}. */
    public static void ifaddr(MessageWriter w, int family, int prefixLength, int flags, int scope, int index) {
        int at = w.reserve(IFADDRMSG_SIZE);
        w.putU8(at + IFA_FAMILY, family);
        w.putU8(at + IFA_PREFIXLEN, prefixLength);
        w.putU8(at + IFADDRMSG_IFA_FLAGS, flags);
        w.putU8(at + IFA_SCOPE, scope);
        w.putU32(at + IFA_INDEX, index);
    }

    /**
     * {@code RTM_NEWADDR} body: the local address in {@code IFA_LOCAL}, the peer (or the local address again) in
     * {@code IFA_ADDRESS} as {@code ip} does, all flags in {@code IFA_FLAGS} (the header byte holds only the low
     * 8), the IPv4 broadcast computed for /30 and shorter when not given, lifetimes when not permanent.
     */
    public static void newAddress(MessageWriter w, Address a) {
        int flags = AddressFlag.bits(a.flags());
        int prefixLength = a.prefixLength();
        ifaddr(w, a.family().af(), prefixLength, flags & 0xff, a.scope().value(), a.index());
        InetAddress local = a.address();
        w.address(IfAddrH.IFA_LOCAL, local);
        w.address(IfAddrH.IFA_ADDRESS, a.peer() != null ? a.peer() : local);
        if (a.family() == Family.V4) {
            InetAddress broadcast = a.broadcast();
            if (broadcast == null && a.peer() == null && prefixLength < 31) {
                broadcast = broadcast(local, prefixLength);
            }
            if (broadcast != null) {
                w.address(IfAddrH.IFA_BROADCAST, broadcast);
            }
            if (a.label() != null) {
                w.string(IfAddrH.IFA_LABEL, a.label());
            }
        }
        w.u32(IfAddrH.IFA_FLAGS, flags);
        if (a.validLifetime() != Address.FOREVER || a.preferredLifetime() != Address.FOREVER) {
            byte[] info = new byte[IFA_CACHEINFO_SIZE];
            ByteBuffer b = ByteBuffer.wrap(info).order(ByteOrder.nativeOrder());
            b.putInt(IFA_PREFERED, (int) a.preferredLifetime());
            b.putInt(IFA_VALID, (int) a.validLifetime());
            w.bytes(IfAddrH.IFA_CACHEINFO, info);
        }
    }

    /** {@code RTM_DELADDR} body: header, {@code IFA_LOCAL} and {@code IFA_ADDRESS}. */
    public static void deleteAddress(MessageWriter w, Address a) {
        ifaddr(w, a.family().af(), a.prefixLength(), 0, 0, a.index());
        w.address(IfAddrH.IFA_LOCAL, a.address());
        w.address(IfAddrH.IFA_ADDRESS, a.peer() != null ? a.peer() : a.address());
    }

    /** The all-ones-host-part address of {@code address/prefixLength} (IPv4). */
    static InetAddress broadcast(InetAddress address, int prefixLength) {
        byte[] b = address.getAddress();
        for (int i = 0; i < b.length; i++) {
            int keep = Math.clamp(prefixLength - 8L * i, 0, 8);
            b[i] |= (byte) (0xff >>> keep);
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Decodes an {@code RTM_NEWADDR} message; null for other types and families. */
    public static Address decode(ByteBuffer b, int off, int len) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWADDR) {
            return null;
        }
        if (len < NLMSGHDR_SIZE + IFADDRMSG_SIZE) {
            throw new MalformedMessageException("RTM_NEWADDR of " + len + " bytes");
        }
        int body = off + NLMSGHDR_SIZE;
        Family family = Family.ofAf(Byte.toUnsignedInt(b.get(body + IFA_FAMILY)));
        if (family == null) {
            return null;
        }
        int prefixLength = Byte.toUnsignedInt(b.get(body + IFA_PREFIXLEN));
        int flags = Byte.toUnsignedInt(b.get(body + IFADDRMSG_IFA_FLAGS));
        int scope = Byte.toUnsignedInt(b.get(body + IFA_SCOPE));
        int index = b.getInt(body + IFA_INDEX);
        InetAddress address = null;
        InetAddress local = null;
        InetAddress broadcast = null;
        String label = null;
        long valid = Address.FOREVER;
        long preferred = Address.FOREVER;
        AttrCursor c = new AttrCursor(b, body + MessageWriter.align(IFADDRMSG_SIZE), off + len);
        while (c.next()) {
            switch (c.type()) {
                case IfAddrH.IFA_ADDRESS -> address = c.address();
                case IfAddrH.IFA_LOCAL -> local = c.address();
                case IfAddrH.IFA_BROADCAST -> broadcast = c.address();
                case IfAddrH.IFA_LABEL -> label = c.string();
                case IfAddrH.IFA_FLAGS -> flags = c.u32();
                case IfAddrH.IFA_CACHEINFO -> {
                    if (c.payloadLength() >= IFA_CACHEINFO_SIZE) {
                        preferred = Integer.toUnsignedLong(b.getInt(c.payloadOffset() + IFA_PREFERED));
                        valid = Integer.toUnsignedLong(b.getInt(c.payloadOffset() + IFA_VALID));
                    }
                }
                default -> { }
            }
        }
        InetAddress mine = local != null ? local : address;
        if (mine == null) {
            throw new MalformedMessageException("RTM_NEWADDR without IFA_LOCAL or IFA_ADDRESS");
        }
        InetAddress peer = local != null && address != null && !address.equals(local) ? address : null;
        return new Address(index, mine, prefixLength, peer, broadcast, Scope.of(scope),
                AddressFlag.of(flags), label, Math.min(valid, Address.FOREVER), Math.min(preferred, Address.FOREVER));
    }
}
