package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ns.Namespace.SysctlWrite;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.spec.CniException;
import java.util.ArrayList;
import java.util.List;

/**
 * The sysctls interface plugins set, with Go's keys and values. Keys use slashes, because interface names may contain
 * dots ({@code eth0.100}). Each change that outlives the links a failed ADD removes is registered for undo.
 */
public final class NetSysctls {
    private NetSysctls() {
    }

    /** {@code net/ipv6/conf/<link>/accept_ra}. */
    public static String acceptRa(String link) {
        return "net/ipv6/conf/" + link + "/accept_ra";
    }

    /** {@code net/ipv6/conf/<link>/disable_ipv6}. */
    public static String disableIpv6(String link) {
        return "net/ipv6/conf/" + link + "/disable_ipv6";
    }

    /** {@code net/ipv4/ip_forward}, Go's {@code ip.EnableIP4Forward}. */
    public static final String IPV4_FORWARD = "net/ipv4/ip_forward";
    /** {@code net/ipv6/conf/all/forwarding}, Go's {@code ip.EnableIP6Forward}. */
    public static final String IPV6_FORWARD = "net/ipv6/conf/all/forwarding";

    /**
     * {@code accept_ra=0} on a host-side link (veth end, bridge): the host must not configure itself from router
     * advertisements sent by a container (CVE-2020-10749). Tolerates a kernel without IPv6 (no such key). When the
     * value changed and the link existed before this ADD, pass a rollback to restore it; pass null for a link the
     * ADD created (its sysctls go with it).
     */
    public static void disableAcceptRa(Namespace ns, String link, Rollback rollback) throws CniException {
        exchange(ns, List.of(new SysctlWrite(acceptRa(link), "0", false)), rollback,
                "failed to disable router advertisements (accept_ra=0) on \"" + link + "\"");
    }

    /**
     * IP forwarding for the families present, as Go's {@code ip.EnableForward}: writes 1 only where it is not 1
     * already. A value this ADD changed is restored by the rollback.
     */
    public static void enableForwarding(Namespace ns, boolean ipv4, boolean ipv6, Rollback rollback)
            throws CniException {
        List<SysctlWrite> writes = new ArrayList<>(2);
        if (ipv4) {
            writes.add(new SysctlWrite(IPV4_FORWARD, "1", true));
        }
        if (ipv6) {
            writes.add(new SysctlWrite(IPV6_FORWARD, "1", true));
        }
        exchange(ns, writes, rollback, "failed to enable forwarding");
    }

    /**
     * The container interface's settings before its addresses go on, as Go's bridge sets them: duplicate address
     * detection off ({@code accept_dad=0}) unless {@code enableDad} ({@code enhanced_dad=1}, {@code accept_dad=1}),
     * and {@code arp_notify=1} so that the kernel announces the interface's IPv4 addresses with gratuitous ARP when
     * the link comes up (Go's replacement for sending them itself). Keys absent on this kernel are skipped, as Go
     * ignores these errors. The link is the ADD's own, so nothing needs restoring.
     */
    public static void containerInterface(Namespace container, String ifName, boolean enableDad)
            throws CniException {
        List<SysctlWrite> writes = new ArrayList<>(3);
        if (enableDad) {
            writes.add(new SysctlWrite("net/ipv6/conf/" + ifName + "/enhanced_dad", "1", false));
            writes.add(new SysctlWrite("net/ipv6/conf/" + ifName + "/accept_dad", "1", false));
        } else {
            writes.add(new SysctlWrite("net/ipv6/conf/" + ifName + "/accept_dad", "0", false));
        }
        writes.add(new SysctlWrite("net/ipv4/conf/" + ifName + "/arp_notify", "1", false));
        exchange(container, writes, null, "failed to configure \"" + ifName + "\" in " + container);
    }

    /**
     * Applies {@code writes} in {@code ns} and registers the restore of every value it changed (when a rollback is
     * given). {@code failure} starts the error message.
     */
    public static void exchange(Namespace ns, List<SysctlWrite> writes, Rollback rollback, String failure)
            throws CniException {
        if (writes.isEmpty()) {
            return;
        }
        List<String> previous;
        try {
            previous = ns.exchangeSysctls(writes);
        } catch (NetlinkException e) {
            throw NetErrors.failure(failure, e);
        }
        if (rollback == null) {
            return;
        }
        List<SysctlWrite> restore = new ArrayList<>(writes.size());
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < writes.size(); i++) {
            if (previous.get(i) != null) {
                restore.add(new SysctlWrite(writes.get(i).key(), previous.get(i), false));
                keys.append(keys.isEmpty() ? "" : ", ").append(writes.get(i).key()).append('=').append(previous.get(i));
            }
        }
        if (!restore.isEmpty()) {
            rollback.onFailure("restore sysctl " + keys + " in " + ns, new Undos.RestoreSysctls(ns, restore));
        }
    }
}
