package io.jcni.netlink;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * An rtnetlink socket bound to one network namespace, the one it was opened for ({@link Netlink#open(NetNs)}), for its
 * whole life, whatever thread uses it. Reads here, changes in {@link NetlinkOps}.
 *
 * <p>Threads: safe to share; requests are serialized (one exchange with the kernel at a time), so open one handle per
 * thread for parallel work. Never switches the calling thread's namespace. Blocking: each call waits for the kernel's
 * reply, which comes back within microseconds (the kernel handles the request while sending it), so calls from
 * virtual threads pin their carrier only that long.
 *
 * <p>Resources: one socket and about 50 KiB of native buffers, freed by {@link #close()}; requests allocate no native
 * memory.
 */
public interface NetlinkHandle extends NetlinkOps, AutoCloseable {

    // ---- links -------------------------------------------------------------------------------------------------

    /** {@code ip -d link show}: every link of the namespace. */
    List<Link> links();

    /** {@code ip -d link show dev NAME}; NOT_FOUND if there is none. */
    Link link(String name);

    /** {@code ip -d link show dev <index>}; NOT_FOUND if there is none. */
    Link link(int index);

    /** As {@link #link(String)}, empty instead of NOT_FOUND. */
    Optional<Link> findLink(String name);

    /** As {@link #link(int)}, empty instead of NOT_FOUND. */
    Optional<Link> findLink(int index);

    /** {@code bridge vlan show dev <index>}: the VLANs of a bridge port, or of the bridge itself. */
    List<BridgeVlan> bridgeVlans(int index);

    // ---- addresses ---------------------------------------------------------------------------------------------

    /** {@code ip addr show}: every address of the family (null: both) on every link. */
    List<Address> addresses(Family family);

    /** {@code ip addr show dev <index>}: the addresses of the family (null: both) on one link. */
    List<Address> addresses(int index, Family family);

    /**
     * Waits until no IPv6 address on the link is tentative (duplicate address detection has finished), polling every
     * 20 ms, like the Go plugins' {@code ip.SettleAddresses}. Returns at once if there are none.
     *
     * @throws NetlinkException EADDRINUSE naming the address if detection failed ({@code dadfailed}), ETIMEDOUT if
     *     addresses are still tentative after {@code timeout}
     */
    void settleAddresses(int index, Duration timeout);

    // ---- routes ------------------------------------------------------------------------------------------------

    /** {@code ip [-6] route show}: the main table's routes of the family (null: both). */
    List<Route> routes(Family family);

    /**
     * {@code ip [-6] route show table TABLE}: the routes of the family (null: both) in one table, or in all tables for table 0
     * ({@code table all}, including the kernel's local and broadcast routes).
     */
    List<Route> routes(Family family, int table);

    /**
     * {@code ip route get ADDRESS}: the route the kernel picks for a packet from this namespace to
     * {@code destination}, policy rules applied; its destination is the address itself (/32 or /128) and its
     * {@link Route#outIndex()} the link the packet leaves by. ENETUNREACH (and the like) when there is none.
     */
    Route routeGet(InetAddress destination);

    // ---- neighbours --------------------------------------------------------------------------------------------

    /** {@code ip [-6] neigh show [dev <index>]}: entries of the family (null: both), on one link or all (index 0). */
    List<Neighbor> neighbors(Family family, int index);

    // ---- policy routing rules ----------------------------------------------------------------------------------

    /** {@code ip [-6] rule show}: the rules of the family (null: both), in priority order. */
    List<Rule> rules(Family family);

    // ---- traffic control ---------------------------------------------------------------------------------------

    /** {@code tc -d qdisc show [dev <index>]}: the qdiscs of one link (0: every link), default qdiscs included. */
    List<Qdisc> qdiscs(int index);

    /**
     * {@code tc -d qdisc show dev <index> parent PARENT}, the one qdisc there: for {@link TcHandle#ROOT} the link's
     * root qdisc, which may be its default one ({@code noqueue}, handle 0); for {@link TcHandle#INGRESS} the ingress
     * or clsact qdisc. NOT_FOUND if there is none (or no such link).
     */
    Qdisc qdisc(int index, int parent);

    /** As {@link #qdisc(int, int)}, empty instead of NOT_FOUND. */
    Optional<Qdisc> findQdisc(int index, int parent);

    /**
     * {@code tc filter show dev <index> parent PARENT}: the filters attached to a qdisc, e.g. {@code ffff:} (the
     * ingress qdisc); a u32 filter lists its priority's entry, hash table and key nodes (see {@link FilterInfo.U32}).
     * Empty when the link has no such qdisc.
     */
    List<Filter> filters(int index, int parent);

    // ---- batching ----------------------------------------------------------------------------------------------

    /** A new, empty batch sent through this handle. */
    Batch batch();

    /** Closes the socket and frees its memory. Later calls fail; idempotent. */
    @Override
    void close();
}
