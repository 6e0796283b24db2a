package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.KernelException;
import io.jcni.plugins.internal.pkg.ns.Namespace.SysctlWrite;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniException;
import io.jcni.spec.IpConfig;
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
     * {@code accept_ra=0} on a host-side link this ADD created (veth end, bridge): the host must not configure itself
     * from router advertisements sent by a container (CVE-2020-10749). Tolerates a kernel without IPv6 (no such key).
     * Nothing to restore: the link's sysctls go with it.
     */
    public static void disableAcceptRa(Namespace ns, String link) throws CniException {
        set(ns, acceptRaOff(link), acceptRaFailure(link));
    }

    /** As {@link #disableAcceptRa(Namespace, String)} on a link that existed before this ADD: restored on failure. */
    public static void disableAcceptRa(Namespace ns, String link, Rollback rollback) throws CniException {
        set(ns, acceptRaOff(link), rollback, acceptRaFailure(link));
    }

    private static List<SysctlWrite> acceptRaOff(String link) {
        return List.of(new SysctlWrite(acceptRa(link), "0", false));
    }

    private static String acceptRaFailure(String link) {
        return "failed to disable router advertisements (accept_ra=0) on \"" + link + "\"";
    }

    /**
     * IP forwarding for the families of {@code ips}, as Go's {@code ip.EnableForward}: writes 1 only where it is not 1
     * already. A value this ADD changed is restored by the rollback.
     */
    public static void enableForwarding(Namespace ns, List<IpConfig> ips, Rollback rollback) throws CniException {
        boolean ipv4 = false;
        boolean ipv6 = false;
        for (IpConfig ip : ips) {
            ipv4 |= ip.isIpv4();
            ipv6 |= !ip.isIpv4();
        }
        List<SysctlWrite> writes = new ArrayList<>(2);
        if (ipv4) {
            writes.add(new SysctlWrite(IPV4_FORWARD, "1", true));
        }
        if (ipv6) {
            writes.add(new SysctlWrite(IPV6_FORWARD, "1", true));
        }
        set(ns, writes, rollback, "failed to enable forwarding");
        Timing.phase("forwarding");
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
        set(container, writes, "failed to configure \"" + ifName + "\" in " + container);
    }

    /**
     * Applies {@code writes} in {@code ns}, on links this ADD created (nothing to restore); {@code failure} starts
     * the error message.
     *
     * @return what each key held before, null where nothing was written ({@link Namespace#exchangeSysctls})
     */
    public static List<String> set(Namespace ns, List<SysctlWrite> writes, String failure) throws CniException {
        if (writes.isEmpty()) {
            return List.of();
        }
        try {
            return ns.exchangeSysctls(writes);
        } catch (KernelException e) {
            throw NetErrors.failure(failure, e);
        }
    }

    /** As {@link #set(Namespace, List, String)}, and registers the restore of every value it changed. */
    public static void set(Namespace ns, List<SysctlWrite> writes, Rollback rollback, String failure)
            throws CniException {
        List<String> previous = set(ns, writes, failure);
        List<SysctlWrite> restore = new ArrayList<>(writes.size());
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < previous.size(); i++) {
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
