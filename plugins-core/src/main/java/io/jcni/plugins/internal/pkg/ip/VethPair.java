package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A veth pair between the host and a container, as Go's {@code ip.SetupVeth} makes it: the container end named
 * CNI_IFNAME, the host end {@code veth<8 hex digits>} (random, as Go's {@code ip.RandomVethName}).
 *
 * @param host      the host end as the kernel reports it after {@link #create}
 * @param container the container end (down until the plugin configures it)
 */
public record VethPair(Link host, Link container) {
    /** Attempts at a free random host name, as Go's {@code makeVeth}. */
    static final int NAME_ATTEMPTS = 10;

    /**
     * Creates the pair in one request from the host side, the container end placed directly in the container's
     * namespace under {@code ifName} (it never appears on the host), registers its deletion in {@code rollback} at
     * once, then sets {@code accept_ra=0} on the host end (CVE-2020-10749) and brings it up.
     *
     * <p>On EEXIST: if the random host name is taken another is drawn (up to {@link #NAME_ATTEMPTS}); otherwise the
     * container already has {@code ifName}, which is an error naming it.
     *
     * @param mtu 0 for the kernel's default; applied to both ends
     * @param mac the container end's address, null for a random one
     */
    public static VethPair create(Namespace host, Namespace container, String ifName, int mtu, MacAddress mac,
            Rollback rollback) throws CniException {
        String hostName = null;
        for (int attempt = 0; attempt < NAME_ATTEMPTS && hostName == null; attempt++) {
            String candidate = randomName();
            try {
                host.nl().addVeth(LinkAttrs.named(candidate).mtu(mtu),
                        LinkAttrs.named(ifName).mtu(mtu).address(mac).netns(container.netns()));
                hostName = candidate;
            } catch (NetlinkException e) {
                if (!e.isExists()) {
                    throw NetErrors.failure("failed to make veth pair " + ifName + "/" + candidate, e);
                }
                if (host.nl().findLink(candidate).isEmpty()) {
                    throw new CniException(CniError.INTERNAL,
                            "container veth name provided (" + ifName + ") already exists",
                            "an interface named " + ifName + " exists in " + container + ": " + e.getMessage());
                }
            }
        }
        if (hostName == null) {
            throw new CniException(CniError.INTERNAL, "failed to find a unique veth name",
                    NAME_ATTEMPTS + " random names were all taken in the host namespace");
        }
        rollback.onFailure("delete veth " + hostName + " (and its peer " + ifName + ")",
                new Undos.DeleteLink(host, hostName));
        try {
            NetSysctls.disableAcceptRa(host, hostName, null);
            Link hostEnd = host.nl().link(hostName);
            host.nl().setUp(hostEnd.index());
            return new VethPair(host.nl().link(hostEnd.index()), container.nl().link(ifName));
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set up veth " + hostName, e);
        }
    }

    /** {@code veth} and 8 hex digits from /dev/urandom, as Go's {@code ip.RandomVethName}. */
    public static String randomName() throws CniException {
        byte[] entropy = new byte[4];
        try (InputStream random = new FileInputStream("/dev/urandom")) {
            if (random.readNBytes(entropy, 0, 4) != 4) {
                throw new IOException("short read");
            }
        } catch (IOException e) {
            throw new CniException(CniError.INTERNAL, "failed to generate random veth name: " + e.getMessage());
        }
        StringBuilder name = new StringBuilder(12).append("veth");
        for (byte b : entropy) {
            name.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return name.toString();
    }
}
