package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

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
            NetSysctls.disableAcceptRa(host, hostName);
            Link hostEnd = host.nl().link(hostName);
            host.nl().setUp(hostEnd.index());
            VethPair pair = new VethPair(host.nl().link(hostEnd.index()), container.nl().link(ifName));
            Timing.phase("veth");
            return pair;
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set up veth " + hostName, e);
        }
    }

    /** How DEL recognizes its host end among a prevResult's host-side veths once the container's namespace is gone. */
    public interface HostEnd {
        /** Whether {@code veth}, a host-side veth recorded in {@code previous}, is this attachment's host end. */
        boolean isOurs(Namespace host, Link veth, Result previous);
    }

    /**
     * DEL without the container's namespace: {@code CNI_NETNS} empty (containerd's teardown of a sandbox whose
     * namespace it already closed) or naming nothing any more. If the namespace itself lives on (a process still
     * holds it), so does the veth pair, and with it the host end's addresses, routes and qdiscs, while IPAM is about
     * to hand the container's address out again: the host end recorded in prevResult is deleted (and the pair with
     * it) when it is a veth with the recorded MAC (when one is recorded: a name is random, not unique for ever) and
     * {@code ours} recognizes it. No prevResult (0.3.x, or a runtime without a cache), or a link already gone, is
     * success: a namespace nobody holds takes the pair with it.
     */
    public static void deleteOrphanedHostEnd(CniRequest request, HostEnd ours) throws CniException {
        Optional<Result> previous = PrevResults.find(request);
        if (previous.isEmpty()) {
            return;
        }
        try (Namespace host = Namespace.host()) {
            for (Interface recorded : previous.get().interfaces()) {
                if (!recorded.sandbox().isEmpty()) {
                    continue;
                }
                Optional<Link> link = host.nl().findLink(recorded.name());
                if (link.isPresent() && link.get().info() instanceof LinkInfo.Veth
                        && hasRecordedMac(recorded, link.get()) && ours.isOurs(host, link.get(), previous.get())) {
                    host.nl().deleteLink(link.get().index());
                    request.log().debug("DEL: no namespace at \"" + request.netns() + "\"; deleted host end "
                            + recorded.name());
                }
            }
        } catch (NetlinkException e) {
            if (!e.isNotFound()) {
                throw NetErrors.failure("failed to delete the host end of " + request.ifName(), e);
            }
        }
    }

    /** Whether {@code link} has the MAC prevResult recorded for it; true when none (or none readable) is recorded. */
    static boolean hasRecordedMac(Interface recorded, Link link) {
        if (recorded.mac().isEmpty()) {
            return true;
        }
        try {
            return MacAddress.parse(recorded.mac()).equals(link.address());
        } catch (IllegalArgumentException malformed) {
            return true;
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
