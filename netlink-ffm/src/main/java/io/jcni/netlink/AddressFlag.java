package io.jcni.netlink;

import io.jcni.netlink.internal.wire.IfAddrH;
import java.util.EnumSet;
import java.util.Set;

/** Address flags ({@code IFA_F_*}), as in {@code ip addr add ... nodad noprefixroute} and {@code ip addr show}. */
public enum AddressFlag {
    /** {@code IFA_F_SECONDARY} (IPv4) / {@code IFA_F_TEMPORARY} (IPv6): the same bit. */
    SECONDARY(IfAddrH.IFA_F_SECONDARY),
    /** {@code IFA_F_NODAD}: skip IPv6 duplicate address detection. */
    NODAD(IfAddrH.IFA_F_NODAD),
    OPTIMISTIC(IfAddrH.IFA_F_OPTIMISTIC),
    /** {@code IFA_F_DADFAILED}: duplicate address detection found the address in use. */
    DADFAILED(IfAddrH.IFA_F_DADFAILED),
    HOMEADDRESS(IfAddrH.IFA_F_HOMEADDRESS),
    DEPRECATED(IfAddrH.IFA_F_DEPRECATED),
    /** {@code IFA_F_TENTATIVE}: IPv6 duplicate address detection has not finished. */
    TENTATIVE(IfAddrH.IFA_F_TENTATIVE),
    PERMANENT(IfAddrH.IFA_F_PERMANENT),
    MANAGETEMPADDR(IfAddrH.IFA_F_MANAGETEMPADDR),
    /** {@code IFA_F_NOPREFIXROUTE}: do not add the prefix route for the address. */
    NOPREFIXROUTE(IfAddrH.IFA_F_NOPREFIXROUTE),
    MCAUTOJOIN(IfAddrH.IFA_F_MCAUTOJOIN),
    STABLE_PRIVACY(IfAddrH.IFA_F_STABLE_PRIVACY);

    private final int bit;

    AddressFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    /** The flags set in {@code bits}. */
    public static Set<AddressFlag> of(int bits) {
        EnumSet<AddressFlag> set = EnumSet.noneOf(AddressFlag.class);
        for (AddressFlag f : values()) {
            if ((bits & f.bit) != 0) {
                set.add(f);
            }
        }
        return set;
    }

    /** The bits of {@code flags}. */
    public static int bits(Set<AddressFlag> flags) {
        int bits = 0;
        for (AddressFlag f : flags) {
            bits |= f.bit;
        }
        return bits;
    }
}
