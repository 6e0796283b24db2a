package io.jcni.spec;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * An IP assigned by an attachment ({@code ips[]} of a 0.3.0+ result).
 *
 * <p>The 0.3.x/0.4.0 wire format also carries {@code "version": "4"|"6"}; that is derived from the address family
 * ({@link #version()}), so it is not a component here: a contradicting value read from a plugin is read as the
 * address's family.
 *
 * @param interfaceIndex index into the result's {@code interfaces}, or null (IPAM plugins leave it out). Any int, as
 *                       libcni's {@code *int}: a plugin's out-of-range index is passed on as it is (see
 *                       {@link Result#interfaceIndexProblems()})
 * @param address        the address with its prefix length, host bits kept ({@code 10.1.0.5/16})
 * @param gateway        the default gateway for this subnet, or null
 */
public record IpConfig(Integer interfaceIndex, IpPrefix address, InetAddress gateway) {
    public IpConfig {
        Objects.requireNonNull(address, "address");
        if (gateway != null) {
            gateway = IpPrefix.normalize(gateway);
        }
    }

    /** An IP without interface index, as IPAM plugins return it. */
    public IpConfig(IpPrefix address, InetAddress gateway) {
        this(null, address, gateway);
    }

    public boolean isIpv4() {
        return address.address() instanceof Inet4Address;
    }

    /** The 0.3.x/0.4.0 {@code version} value: "4" or "6". */
    public String version() {
        return isIpv4() ? "4" : "6";
    }

    /** This IP with its interface index set. */
    public IpConfig withInterfaceIndex(Integer index) {
        return new IpConfig(index, address, gateway);
    }

    /** Addresses as CNI prints them: {@code IpConfig[interfaceIndex=0, address=10.1.0.5/16, gateway=10.1.0.1]}. */
    @Override
    public String toString() {
        return "IpConfig[interfaceIndex=" + interfaceIndex + ", address=" + address + ", gateway="
                + (gateway == null ? "null" : IpText.format(gateway)) + "]";
    }
}
