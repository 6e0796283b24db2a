package io.jcni.plugins.internal.meta.sbr;

import io.jcni.netlink.Address;
import io.jcni.netlink.Family;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Route;
import io.jcni.netlink.Rule;
import io.jcni.netlink.sys.FileLocks;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code sbr} meta plugin (source-based routing), chained after the plugin that configured CNI_IFNAME: traffic
 * from each of the interface's addresses is routed by a table of its own, so that a multi-homed container answers
 * through the interface a request came in on. As Go's sbr (containernetworking/plugins 1.1.1; {@code table} from
 * 1.6.0), in the container's namespace, holding Go's lock (an exclusive {@code flock} on the namespace: Go's sbr and
 * jcni's serialize against each other):
 *
 * <p>Without {@code table}: the first table from 100 up that no rule uses (Go's {@code getNextTableID}, which also
 * looks at the main table's routes, whose table is always main); per address of the interface in prevResult, in
 * order, a rule {@code from ADDR/32} (or {@code /128}) {@code lookup TABLE} at the kernel's priority, a default route
 * via the address's gateway in that table (when it has one), and a copy (flags cleared) of every main-table route of
 * the interface whose source or gateway is in the address's prefix, or that has neither; then the next free table for
 * the next address. Finally every main-table route of the interface is deleted (all of them, as Go does). With
 * {@code table}: only the rules, to that table, whose routes are the administrator's.
 *
 * <p>Each change registers its undo as it is made: a failed ADD restores the main table and removes rules and copied
 * routes (Go's leaves them). The result is the prevResult, unchanged.
 *
 * <p>DEL: the rules (of {@code table} when configured, else of any table) whose source is an address the interface
 * still has; a missing namespace or interface is success; every rule is tried, the first failure reported. The
 * tables' routes go with the interface when its plugin deletes it, as with Go. CHECK (Go's does nothing): a rule
 * from every address in prevResult (to {@code table} when configured). GC and STATUS: sbr keeps nothing outside the
 * container's namespace, so there is nothing to collect, and it is always ready.
 */
public final class SbrPlugin implements CniPlugin {
    /** Go's {@code firstTableID}. */
    static final int FIRST_TABLE = 100;

    /** The configuration: Go's {@code table}, null when absent. */
    record Config(Integer table) {
        /** ADD's and CHECK's: a table from 1 up (the kernel would pick an empty table for 0 and refuse negatives). */
        static Config load(CniRequest request) throws CniException {
            Optional<Long> table = request.config().node().integer("table", 1, Integer.MAX_VALUE);
            return new Config(table.isEmpty() ? null : Integer.valueOf((int) table.get().longValue()));
        }

        /**
         * DEL's: any integer, so that a configuration ADD refused never blocks its DEL (a table no rule has simply
         * matches nothing, as in Go).
         */
        static Config forDel(CniRequest request) throws CniException {
            Optional<Long> table = request.config().node().integer("table", Integer.MIN_VALUE, Integer.MAX_VALUE);
            return new Config(table.isEmpty() ? null : Integer.valueOf((int) table.get().longValue()));
        }
    }

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        Optional<Result> previous = PrevResults.find(request);
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "This plugin must be called as chained plugin",
                    "sbr routes the addresses a previous plugin configured; the configuration has no prevResult");
        }
        List<IpConfig> ips = interfaceIps(previous.get(), request.ifName());
        try (Namespace container = Namespace.container(request.netns());
                FileLocks.ExclusiveLock lock = FileLocks.exclusive(container.netns())) {
            Timing.phase("lock");
            if (conf.table() != null) {
                addRules(container, ips, conf.table(), request.rollback());
            } else {
                routeBySource(container, ips, request.ifName(), request.rollback());
            }
        } catch (KernelException e) {
            throw NetErrors.failure("sbr " + request.ifName() + " in " + request.netns(), e);
        }
        return previous.get();
    }

    /**
     * Go's {@code getIPCfgs}: the prevResult's addresses on {@code ifName}. An address without an interface index is
     * taken as this interface's, one whose index names another interface is skipped (by name, as Go compares).
     */
    static List<IpConfig> interfaceIps(Result previous, String ifName) throws CniException {
        if (previous.ips().isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "No IP addresses supplied on interface: " + ifName);
        }
        List<IpConfig> ips = new ArrayList<>(previous.ips().size());
        for (IpConfig ip : previous.ips()) {
            Integer index = ip.interfaceIndex();
            if (index != null && index >= 0 && index < previous.interfaces().size()
                    && !previous.interfaces().get(index).name().equals(ifName)) {
                continue;
            }
            ips.add(ip);
        }
        return ips;
    }

    /** Go's {@code doRoutesWithTable}: one rule per address to the configured table. */
    private static void addRules(Namespace container, List<IpConfig> ips, int table, Rollback rollback)
            throws CniException {
        for (IpConfig ip : ips) {
            addRule(container, ip, table, rollback);
        }
        Timing.phase("rules");
    }

    /** {@code ip rule add from ADDR/32 lookup TABLE} (or {@code /128}), at the priority the kernel chooses. */
    private static void addRule(Namespace container, IpConfig ip, int table, Rollback rollback) throws CniException {
        InetAddress source = ip.address().address();
        Rule rule = Rule.from(source, Family.of(source).bits()).table(table);
        try {
            container.nl().addRule(rule);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to add rule " + rule, e);
        }
        rollback.onFailure("delete rule " + rule, new DeleteRule(container, rule));
    }

    /** ADD rollback: {@code ip rule del RULE}; a rule already gone is fine. */
    private static final class DeleteRule extends Undos.InNamespace {
        private final Rule rule;

        DeleteRule(Namespace ns, Rule rule) {
            super(ns);
            this.rule = rule;
        }

        @Override
        protected void apply(Namespace open) {
            open.nl().deleteRule(rule);
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isNotFound();
        }
    }

    /** Go's {@code doRoutes}: rules, a table per address, the interface's routes moved out of the main table. */
    private static void routeBySource(Namespace container, List<IpConfig> ips, String ifName, Rollback rollback)
            throws CniException {
        NetlinkHandle nl = container.nl();
        List<Integer> used = usedTables(nl.rules(null));
        int table = nextTable(used, FIRST_TABLE);
        Optional<Link> found = nl.findLink(ifName);
        if (found.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "Cannot find network interface " + ifName,
                    "no link " + ifName + " in " + container.path());
        }
        Link link = found.get();
        List<Route> linkRoutes = mainRoutesVia(container, link.index());
        for (IpConfig ip : ips) {
            addRule(container, ip, table, rollback);
            if (ip.gateway() != null) {
                Route defaultRoute = Route.defaultVia(ip.gateway()).dev(link.index()).table(table);
                try {
                    nl.addRoute(defaultRoute);
                } catch (NetlinkException e) {
                    throw NetErrors.failure("Failed to add default route to " + IpText.format(ip.gateway()), e);
                }
                rollback.onFailure("delete route " + defaultRoute, new DeleteRoute(container, defaultRoute));
            }
            for (Route route : linkRoutes) {
                if (belongsTo(route, ip)) {
                    Route copy = route.table(table).flags(0);
                    try {
                        nl.replaceRoute(copy);
                    } catch (NetlinkException e) {
                        throw NetErrors.failure("Failed to readd route " + copy, e);
                    }
                    rollback.onFailure("delete route " + copy, new DeleteRoute(container, copy));
                }
            }
            table = nextTable(used, table + 1);
        }
        for (Route route : linkRoutes) {
            try {
                nl.deleteRoute(route);
            } catch (NetlinkException e) {
                if (!e.isNotFound()) {
                    throw NetErrors.failure("Failed to delete route " + route, e);
                }
            }
            rollback.onFailure("restore route " + route, new RestoreRoute(container, route));
        }
        Timing.phase("routes");
    }

    /** The tables the rules look up (Go also adds the main table's routes' table, which is main). */
    private static List<Integer> usedTables(List<Rule> rules) {
        List<Integer> used = new ArrayList<>(rules.size() + 1);
        used.add(Route.TABLE_MAIN);
        for (Rule rule : rules) {
            used.add(rule.table());
        }
        return used;
    }

    /** Go's {@code getNextTableID}: the first table from {@code candidate} up that is not in {@code used}. */
    static int nextTable(List<Integer> used, int candidate) {
        int table = candidate;
        while (used.contains(table)) {
            table++;
        }
        return table;
    }

    /** The main table's routes of both families through the link (Go's {@code RouteList(link, FAMILY_ALL)}). */
    private static List<Route> mainRoutesVia(Namespace container, int index) {
        List<Route> routes = new ArrayList<>();
        for (Family family : Family.values()) {
            for (Route route : container.mainRoutes(family)) {
                if (route.outIndex() == index && route.table() == Route.TABLE_MAIN) {
                    routes.add(route);
                }
            }
        }
        return routes;
    }

    /** Go's test for copying a route to an address's table: source or gateway in its prefix, or neither set. */
    static boolean belongsTo(Route route, IpConfig ip) {
        if (route.source() == null && route.gateway() == null) {
            return true;
        }
        return route.source() != null && ip.address().contains(route.source())
                || route.gateway() != null && ip.address().contains(route.gateway());
    }

    /** ADD rollback: a route this ADD put in a table removed again; one already gone is fine. */
    private static final class DeleteRoute extends Undos.InNamespace {
        private final Route route;

        DeleteRoute(Namespace ns, Route route) {
            super(ns);
            this.route = route;
        }

        @Override
        protected void apply(Namespace open) {
            open.nl().deleteRoute(route);
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isNotFound();
        }
    }

    /** ADD rollback: a main-table route this ADD deleted put back; one that is there again (or its link gone) is fine. */
    private static final class RestoreRoute extends Undos.InNamespace {
        private final Route route;

        RestoreRoute(Namespace ns, Route route) {
            super(ns);
            this.route = route;
        }

        @Override
        protected void apply(Namespace open) {
            open.nl().addRoute(route);
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isExists() || e.kind() == KernelException.Kind.NOT_FOUND;
        }
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    @Override
    public void del(CniRequest request) throws CniException {
        Config conf = Config.forDel(request);
        Optional<Namespace> found = Namespace.containerIfPresent(request.netns());
        if (found.isEmpty()) {
            return;
        }
        try (Namespace container = found.get();
                FileLocks.ExclusiveLock lock = FileLocks.exclusive(container.netns())) {
            tidyRules(container, request.ifName(), conf.table());
        } catch (KernelException e) {
            throw NetErrors.failure("failed to tidy the rules of " + request.ifName() + " in " + request.netns(), e);
        }
    }

    /**
     * Go's {@code tidyRules}: deletes the rules (of {@code table}, or all) whose source is one of the interface's
     * addresses, going on past failures; the first is thrown at the end.
     */
    private static void tidyRules(Namespace container, String ifName, Integer table) throws CniException {
        NetlinkHandle nl = container.nl();
        Optional<Link> link = nl.findLink(ifName);
        if (link.isEmpty()) {
            return;
        }
        List<Address> addresses = nl.addresses(link.get().index(), null);
        CniException first = null;
        for (Rule rule : nl.rules(null)) {
            if (rule.source() == null || (table != null && rule.table() != table.intValue())) {
                continue;
            }
            for (Address address : addresses) {
                if (rule.source().equals(address.address())) {
                    try {
                        nl.deleteRule(rule);
                    } catch (NetlinkException e) {
                        if (!e.isNotFound() && first == null) {
                            first = NetErrors.failure("Failed to delete rule " + rule, e);
                        }
                    }
                    break;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        Result previous = PrevResults.require(request);
        List<IpConfig> ips = interfaceIps(previous, request.ifName());
        try (Namespace container = Namespace.container(request.netns())) {
            List<Rule> rules = container.nl().rules(null);
            for (IpConfig ip : ips) {
                InetAddress source = ip.address().address();
                if (!hasRule(rules, source, conf.table())) {
                    throw new CniException(CniError.INTERNAL, "no rule from " + IpText.format(source) + "/"
                            + Family.of(source).bits() + (conf.table() == null ? "" : " lookup " + conf.table())
                            + " in " + request.netns());
                }
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to read the rules of " + request.netns(), e);
        }
    }

    private static boolean hasRule(List<Rule> rules, InetAddress source, Integer table) {
        for (Rule rule : rules) {
            if (source.equals(rule.source()) && rule.sourceLength() == Family.of(source).bits()
                    && rule.action() == Rule.ACTION_TO_TABLE && (table == null || rule.table() == table.intValue())) {
                return true;
            }
        }
        return false;
    }
}
