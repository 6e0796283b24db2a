package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Dns;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A lease: the server's DHCPACK, when it came and from which link-layer address, and what follows from it (the times
 * to renew, rebind and give up, and the CNI result). Immutable; a renewal makes a new one.
 *
 * <p>Times (RFC 2131 4.4.5): the lease time is option 51 (Go's default, one hour, when absent), T1 option 58 (half the
 * lease by default), T2 option 59 (seven eighths by default); times a server sets out of order (T1 after T2, T2 after
 * the end) fall back to the defaults. A lease time of 0xffffffff never ends and is never renewed.
 */
final class Lease {
    /** Go's {@code defaultLeaseTime}. */
    static final long DEFAULT_LEASE_SECONDS = 3600;
    private static final long INFINITE = 0xffffffffL;

    final DhcpMessage ack;
    /** When the ACK arrived, epoch milliseconds. */
    final long boundAt;
    /** The link-layer address the ACK came from: where unicast requests (renewal, release) go. */
    final byte[] serverMac;
    final long leaseSeconds;
    final long renewSeconds;
    final long rebindSeconds;

    Lease(DhcpMessage ack, long boundAt, byte[] serverMac) {
        this.ack = ack;
        this.boundAt = boundAt;
        this.serverMac = serverMac.clone();
        long lease = ack.secondsOption(DhcpMessage.OPT_LEASE_TIME);
        if (lease < 0) {
            lease = DEFAULT_LEASE_SECONDS;
        }
        long t1 = ack.secondsOption(DhcpMessage.OPT_RENEWAL_TIME);
        long t2 = ack.secondsOption(DhcpMessage.OPT_REBINDING_TIME);
        if (t2 < 0 || t2 > lease) {
            t2 = lease * 7 / 8;
        }
        if (t1 < 0 || t1 > t2) {
            t1 = Math.min(lease / 2, t2);
        }
        this.leaseSeconds = lease;
        this.renewSeconds = t1;
        this.rebindSeconds = t2;
    }

    boolean infinite() {
        return leaseSeconds == INFINITE;
    }

    long renewAt() {
        return infinite() ? Long.MAX_VALUE : boundAt + renewSeconds * 1000;
    }

    long rebindAt() {
        return infinite() ? Long.MAX_VALUE : boundAt + rebindSeconds * 1000;
    }

    long expiresAt() {
        return infinite() ? Long.MAX_VALUE : boundAt + leaseSeconds * 1000;
    }

    /** The leased address ({@code yiaddr}). */
    byte[] address() {
        return ack.yiaddr.clone();
    }

    /** The server identifier (option 54), where renewals and releases are addressed. */
    byte[] serverId() {
        byte[] id = ack.addressOption(DhcpMessage.OPT_SERVER_ID);
        return id != null ? id : ack.siaddr.clone();
    }

    /**
     * The address with the prefix length of option 1. Go fails the same way without it ("DHCP option Subnet Mask
     * not found in DHCPACK"); a mask that is not a prefix (ones, then zeros) is refused too, since CNI has no way to
     * say it.
     */
    IpPrefix prefix() throws CniException {
        byte[] mask = ack.option(DhcpMessage.OPT_SUBNET_MASK);
        if (mask == null || mask.length != 4) {
            throw new CniException(CniError.FIRST_PLUGIN_SPECIFIC, "DHCP option Subnet Mask not found in DHCPACK");
        }
        int bits = ((mask[0] & 0xff) << 24) | ((mask[1] & 0xff) << 16) | ((mask[2] & 0xff) << 8) | (mask[3] & 0xff);
        int length = Integer.bitCount(bits);
        if (bits != (length == 0 ? 0 : -1 << (32 - length))) {
            throw new CniException(CniError.FIRST_PLUGIN_SPECIFIC, "DHCP option Subnet Mask "
                    + IpText.format(mask) + " is not a prefix");
        }
        return new IpPrefix(inet(ack.yiaddr), length);
    }

    /** The first router of option 3, Go's gateway; null without one. */
    InetAddress gateway() {
        byte[] routers = ack.option(DhcpMessage.OPT_ROUTER);
        return routers == null || routers.length < 4 ? null : inet(Arrays.copyOf(routers, 4));
    }

    /**
     * Go's {@code Routes}: the classless static routes of option 121 when there are any (RFC 3442: then the routers
     * and static routes options are ignored), a route with router 0.0.0.0 being on-link (scope link); otherwise the
     * classful static routes of option 33 and a default route via the gateway. Every route gets {@code priority}
     * when it is not 0 ({@code ipam.priority}).
     */
    List<Route> routes(int priority) {
        List<Route> routes = new ArrayList<>();
        List<byte[]> classless = classlessRoutes(ack.option(DhcpMessage.OPT_CLASSLESS_ROUTES));
        if (!classless.isEmpty()) {
            for (byte[] r : classless) {
                byte[] router = Arrays.copyOfRange(r, 5, 9);
                boolean onLink = router[0] == 0 && router[1] == 0 && router[2] == 0 && router[3] == 0;
                IpPrefix destination = new IpPrefix(inet(Arrays.copyOfRange(r, 1, 5)), r[0] & 0xff);
                routes.add(new Route(destination, inet(router), 0, 0, priority, null, onLink ? 253 : null));
            }
            return List.copyOf(routes);
        }
        byte[] statics = ack.option(DhcpMessage.OPT_STATIC_ROUTES);
        if (statics != null) {
            for (int at = 0; at + 8 <= statics.length; at += 8) {
                int first = statics[at] & 0xff;
                int length = first < 128 ? 8 : first < 192 ? 16 : first < 224 ? 24 : -1;
                if (length < 0) {
                    continue; // class D and E have no classful network (Go would print "<nil>" for its mask)
                }
                routes.add(new Route(new IpPrefix(inet(Arrays.copyOfRange(statics, at, at + 4)), length),
                        inet(Arrays.copyOfRange(statics, at + 4, at + 8)), 0, 0, priority, null, null));
            }
        }
        InetAddress gateway = gateway();
        if (gateway != null) {
            routes.add(new Route(new IpPrefix(inet(new byte[4]), 0), gateway, 0, 0, priority, null, null));
        }
        return List.copyOf(routes);
    }

    /**
     * Option 121's routes as {@code {width, a, b, c, d, router...}} rows; none when the option is absent or malformed
     * (RFC 3442: a client ignores a malformed option, and Go then falls back to options 33 and 3 as it does here).
     */
    static List<byte[]> classlessRoutes(byte[] option) {
        List<byte[]> rows = new ArrayList<>();
        if (option == null) {
            return rows;
        }
        int at = 0;
        while (at < option.length) {
            int width = option[at] & 0xff;
            int significant = (width + 7) / 8;
            if (width > 32 || at + 1 + significant + 4 > option.length) {
                return new ArrayList<>();
            }
            byte[] row = new byte[9];
            row[0] = (byte) width;
            System.arraycopy(option, at + 1, row, 1, significant);
            System.arraycopy(option, at + 1 + significant, row, 5, 4);
            rows.add(row);
            at += 1 + significant + 4;
        }
        return rows;
    }

    /** DNS from options 6 (servers), 15 (domain) and 119 (search list, RFC 3397); Go's result has none. */
    Dns dns() {
        List<String> servers = new ArrayList<>();
        byte[] dns = ack.option(DhcpMessage.OPT_DNS);
        if (dns != null) {
            for (int at = 0; at + 4 <= dns.length; at += 4) {
                servers.add(IpText.format(Arrays.copyOfRange(dns, at, at + 4)));
            }
        }
        String domain = "";
        byte[] name = ack.option(DhcpMessage.OPT_DOMAIN_NAME);
        if (name != null) {
            int length = name.length;
            while (length > 0 && (name[length - 1] == 0 || name[length - 1] == '.')) {
                length--; // some servers send a trailing NUL
            }
            domain = new String(name, 0, length, StandardCharsets.ISO_8859_1);
        }
        return new Dns(servers, domain, searchList(ack.option(DhcpMessage.OPT_DOMAIN_SEARCH)), List.of());
    }

    /**
     * Option 119: domain names in DNS wire format (RFC 1035 3.1), compressed with pointers into the option itself
     * (RFC 3397 2). A malformed list (a pointer forward or out of the option, a label past the end, more jumps than
     * the option has bytes) yields the names read before it.
     */
    static List<String> searchList(byte[] option) {
        List<String> names = new ArrayList<>();
        if (option == null) {
            return names;
        }
        int at = 0;
        while (at < option.length) {
            StringBuilder name = new StringBuilder();
            int cursor = at;
            int next = -1;
            int jumps = 0;
            while (true) {
                if (cursor >= option.length) {
                    return names;
                }
                int length = option[cursor] & 0xff;
                if (length == 0) {
                    cursor++;
                    break;
                }
                if ((length & 0xc0) == 0xc0) {
                    if (cursor + 1 >= option.length || ++jumps > option.length) {
                        return names;
                    }
                    int target = ((length & 0x3f) << 8) | (option[cursor + 1] & 0xff);
                    if (target >= cursor) {
                        return names; // only backward pointers: nothing can loop
                    }
                    if (next < 0) {
                        next = cursor + 2;
                    }
                    cursor = target;
                    continue;
                }
                if ((length & 0xc0) != 0 || cursor + 1 + length > option.length) {
                    return names;
                }
                if (!name.isEmpty()) {
                    name.append('.');
                }
                name.append(new String(option, cursor + 1, length, StandardCharsets.ISO_8859_1));
                cursor += 1 + length;
            }
            names.add(name.toString());
            at = next >= 0 ? next : cursor;
        }
        return names;
    }

    /** The CNI result of this lease: one IPv4 address with its gateway, the routes and DNS. */
    Result result(int priority) throws CniException {
        return new Result(List.of(), List.of(new IpConfig(prefix(), gateway())), routes(priority), dns());
    }

    static InetAddress inet(byte[] four) {
        try {
            return InetAddress.getByAddress(four);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv4 address: " + four.length + " bytes", e);
        }
    }
}
