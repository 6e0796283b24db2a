/**
 * The {@code cluster-ipam} IPAM plugin: host-local's ranges ({@link
 * io.jcni.plugins.internal.pkg.ipam.ranges.RangeConfig}, the same range model and Go's messages), allocated for a
 * whole cluster from etcd. {@link io.jcni.plugins.internal.ipam.cluster.ClusterIpamPlugin} reads the config, {@link
 * io.jcni.plugins.internal.ipam.cluster.ClusterStore} is the store (an {@link
 * io.jcni.plugins.internal.pkg.ipam.ranges.IpamStore}, as host-local's {@code HostLocalStore} is; its parts are
 * {@code ClusterKeys}, {@code AllocationRead}, {@code NodeView}, {@code RangeRegistry}, {@code Blocks}, {@code
 * PreClaim}, {@code NodeLiveness}, {@code Reclaim} and {@code ClusterEtcd}), {@link
 * io.jcni.plugins.internal.ipam.cluster.EtcdClient} speaks etcd v3's gRPC API over {@link
 * io.jcni.plugins.internal.ipam.cluster.GrpcChannel}s (HTTP/2, with {@code Hpack} and {@code Proto} for the headers
 * and messages; {@code IdleChannels} keeps them between calls).
 *
 * <h2>Keys</h2>
 * Everything lives under the configured {@code prefix} (default {@code /jcni/ipam}); addresses are written as
 * fixed-width hex ({@code 4/0a400105}, {@code 6/<32 digits>}) so that key order is address order and a block's
 * addresses are one range read.
 * <pre>
 * &lt;prefix&gt;/networks                                 {"&lt;network&gt;": [["&lt;subnet&gt; &lt;start&gt; &lt;end&gt; &lt;gw&gt;", ...], ...], ...}
 * &lt;prefix&gt;/&lt;net&gt;/ip/4/0a400105                   "&lt;node&gt;\n&lt;containerID&gt;\n&lt;ifname&gt;"   one key per address
 * &lt;prefix&gt;/&lt;net&gt;/owner/&lt;node&gt;/&lt;containerID&gt;/&lt;ifname&gt;  "4/0a400105,6/fd40..."      one key per attachment
 * &lt;prefix&gt;/&lt;net&gt;/block/4/0a400100                "&lt;node&gt;"     a block (default /26, /122) claimed by a node
 * &lt;prefix&gt;/&lt;net&gt;/affinity/&lt;node&gt;/4/0a400100      ""           the same claim, listed per node
 * &lt;prefix&gt;/&lt;net&gt;/node/&lt;node&gt;                    "&lt;lease&gt; &lt;ms&gt;"  liveness, on a lease of nodeTtlSeconds
 * &lt;prefix&gt;/&lt;net&gt;/member/&lt;node&gt;                  ""           "this node may hold addresses" (for GC)
 * </pre>
 *
 * <h2>ADD: one compare-and-swap, one read before it when the JVM is fresh</h2>
 * <pre>
 *  node A (plugin service: a warm view)                   etcd (any member; a follower forwards to the leader)
 *  ────────────────────────────────────                   ────────────────────────────────────────────────────
 *   NodeView of A: registry, node/A, A's blocks at revision V, the address keys in them
 *   │ owner/A/c1/eth0 assumed absent, requested addresses assumed free
 *   │ a free address X in A's blocks, by the view
 *   ▼
 *  txn{ compare: ip/X absent, owner/A/c1/eth0 absent,             ───▶  all hold: the puts are applied at once
 *                networks and node/A at their revisions,
 *                no affinity/A/* written after V
 *       then:    put ip/X, put owner/A/c1/eth0, [put node/A on lease]
 *       else:    range networks, owner/A/c1/eth0, affinity/A/*,   ◀───  one fails: nothing is written, and the
 *                node/A, [requested ip/*], ip/&lt;X's block&gt; }             reads come back in the same answer
 *   │ failed: the next attempt works from those reads (a stale view costs one more transaction, never a duplicate)
 *
 *  node A (exec'd plugin: a fresh JVM, an empty view)
 *  txn{ range networks, owner/A/c1/eth0,        ───────▶  linearizable reads at revision R
 *       affinity/A/*, node/A }                  ◀───────  registry, held addresses, A's blocks, A's liveness
 *   │ owner exists?  ── yes ──▶ return what it holds (a repeated ADD is idempotent)
 *   │ a free address in A's blocks?  range ip/&lt;block&gt; (keys only, ≤ 64 keys per block)
 *   │   none: claim an unclaimed block (its key goes into the write below); the block keys are read with
 *   │         the address keys of the block the node tries first, so a claim of a free block is one read
 *   │   none unclaimed: borrow: scan ip/ of the range from a random point for any free address
 *   ▼
 *  the same txn, with [block/B absent, put block/B, affinity/A/B] for a claim and [put networks, networks
 *  unchanged] for a registration
 * </pre>
 * So an ADD is one etcd transaction, after one linearizable read of the node's liveness key that proves a quorum
 * (a write sent blind to a member without one can commit after its call answered code 11), in the plugin service (or any JVM that hosts the plugin for many calls, through
 * {@code Plugins.inProcess()}) whenever the node's view has a free address in the node's blocks, and three (read,
 * read of a block, write) for an exec'd plugin, as before: the format in etcd is the same for both, and they mix
 * freely. The node's concurrent ADDs in one JVM share that read ({@code QuorumRead}, kept with the node's view). Its
 * answer is not used, and a linearizable read sent after a call began, or up to 10 ms before (a grace: see {@code
 * QuorumRead}), proves the quorum for that call as well as its own would; one sent earlier does not. "A call" is the
 * plugin call ({@code CallStart}, set by the skel: for cluster-ipam run in-process by bridge, bridge's call). So a call
 * whose plugin call began before the latest answered read was sent (or within the grace after it) does not wait; one
 * that finds a read in flight sent after it began (or in the grace) waits for it; one that finds a read in flight sent
 * earlier waits for the next, which one of those waiting sends as soon as the one in flight ends: one read for each
 * such round of calls instead of one per call, and a call waits at most for the end of the read in flight and
 * one read. Any other answered request of the node's calls proves as much as a read sent when it was sent (each is a
 * linearizable read or a write raft committed); a request that fails drops the proof of the answered ones until one
 * sent after it is answered. A node's calls that the view cannot serve (a new node or network, its blocks full) leave
 * the read, and the claim of a block, to one of them ({@code NodeView.refill}); the others then try the view again. Each call that
 * waits still gets what its own read would have given it: the same errors (code 11 without a quorum) and never a wait past its own deadline; a read that
 * failed only because its sender's deadline passed is sent again for those with time left. The view ({@code
 * NodeView}, one per etcd cluster, prefix, network and node in the JVM) is only a guess
 * of where a free address is: the write compares every key the guess rests on, and {@code ip/X absent} is what
 * makes an address unique, exactly as without it. What the view never does: answer an error or an existing
 * reservation (a repeated ADD, a full range, a requested address taken: the attempt reads first), read anything
 * itself (no free address in the view, or ranges not registered in it as the call's config has them: the attempt
 * reads first, or waits for the node's call that reads), or survive a registration or a lapsed liveness key of its
 * own node (forgotten: the next ADD reads). Block claims, borrowing, the liveness lease grant (every third of
 * {@code nodeTtlSeconds}) and the reclaim of vanished nodes (GC) stay off that path: a warm ADD that leaves less than
 * a quarter of a block free in the node's blocks has the next block claimed ahead of need on a thread of its own
 * ({@code PreClaim}), so that the node's later ADDs find room in the view instead of one of them reading and claiming.
 * A write sent from the view gives up its first attempt after 500 ms (or a quarter of {@code dialTimeoutSeconds})
 * and the retry reads: while a stopped leader is not yet replaced, a follower forwards a write to it and nothing
 * proposes it again, where a read waits for the election. Plain connections are kept between calls ({@code
 * IdleChannels}); TLS ones are opened per call.
 *
 * <p>No lock is held across the network (the calls that wait for a shared quorum read wait for its answer, and no
 * lock is held while it is sent): two nodes that pick the same address both send their transaction, etcd
 * applies the first, the second's {@code ip/X absent} fails and it retries from the reads its failure returned (each
 * lost race means another call won, so the cluster as a whole always progresses; a call gives up after 400 lost
 * races or at its deadline, with code 11). The address key and the owner key are created in the same transaction, and
 * deleted in the same transaction by DEL, so there is no moment at which an address is taken without an owner that
 * releases it: a plugin killed with SIGKILL at any point either committed (the runtime's DEL releases it) or did not
 * (nothing to release). Picking at random among a block's first free addresses keeps one node's concurrent calls from
 * colliding (in the service, an address one call is about to write is also marked used in the view for the others); a
 * node's name decides where in the range it looks for its first unclaimed block.
 *
 * <p>Blocks (Calico's affinity idea): a node allocates from blocks it claimed, so the common ADD reads only its own
 * blocks' keys (64 per block), whatever the fill of the range, and nodes rarely contend. A block is claimed in the
 * same transaction as the first address taken from it, or, in the service, ahead of need by a transaction of its own
 * that compares the node's claims, registry and liveness key as its view had them. When every block is claimed, a
 * node borrows any free address (the scan reads keys page by page), so a full cluster still hands out its last free
 * address to whichever node asks; a /26 holds host-local's 61 addresses whatever the block size.
 *
 * <h2>DEL, CHECK, GC</h2>
 * DEL reads the owner key and the address keys it names, and deletes the owner and those address keys that still name
 * this attachment in one transaction that holds only if none changed in between; an owner already gone is success.
 * CHECK needs the owner and its addresses. GC (1.1.0) releases this node's attachments not in {@code
 * cni.dev/valid-attachments} (refused with code 7 without the key, as host-local does).
 *
 * <h2>Nodes that disappear</h2>
 * Every ADD, GC and STATUS of a node refreshes its liveness key {@code node/<node>}, attached to an etcd lease of
 * {@code nodeTtlSeconds} (default 3600), when a third of the TTL has passed (one lease grant and one put, folded into
 * the ADD's transaction). A node that makes no call for the whole TTL loses its key when the lease expires. The next
 * GC of any other node then releases that node's reservations and block claims, each transaction comparing that
 * {@code node/<node>} is still absent, so a node that comes back in the meantime keeps everything. Runtimes call
 * STATUS every few seconds (containerd 2, CRI-O), which keeps a live node's key fresh; with a runtime that calls
 * nothing for long stretches, set {@code nodeTtlSeconds} above the longest quiet period, or 0 to turn reclaiming off
 * (then only a node's own GC or DEL releases its addresses).
 *
 * <h2>Failures</h2>
 * A call has one deadline, {@code requestTimeoutSeconds} (default 10), for all its etcd requests; each attempt at one
 * endpoint gets {@code min(dialTimeoutSeconds, remaining)} (default 2 s) to connect and answer in the first round of
 * attempts, twice as long in each further round (a cluster that is slow under load is not cut off for ever; a single
 * endpoint gets all that is left, having no other to move on to). Refused connections,
 * attempts that time out (a member that is stopped still accepts connections: its kernel does) and etcd's "no
 * leader", "request timed out" and gRPC Unavailable move on to the next endpoint, round after round, until the
 * deadline; an endpoint that failed is tried last for 30 s by every call of the JVM (the plugin service's). With one
 * member of three down or stopped, ADD and DEL go on, the first call to meet the stopped member paying one
 * {@code dialTimeoutSeconds}; without quorum a call fails with code 11 at the deadline and has written nothing.
 * Wrong credentials, permission denied or TLS files that fail are code 7, a key of this plugin that cannot be read
 * (a corrupted registry, owner or address key) code 100 naming the key; neither changes anything in etcd.
 *
 * <h2>Why gRPC, and not jetcd or java.net.http</h2>
 * jetcd (gRPC, Netty, Vert.x: ~30 MB) has no module descriptor and cannot be linked into the image. The JDK's {@code
 * HttpClient} can, but an exec'd plugin is a fresh JVM, and its first request starts a selector thread and loads the
 * HTTP/1.1+2 machinery: measured on this machine (JDK 25, the launchers' flags, each with an AOT cache trained on its
 * own run, one range request to a local etcd, n = 30, a loaded host) 245 ms of user CPU against 40 ms for the same
 * request over a plain socket. So the client is written on a socket: {@link
 * io.jcni.plugins.internal.ipam.cluster.GrpcChannel} is HTTP/2 for unary gRPC calls, one at a time per connection
 * (TLS is {@code javax.net.ssl}, with ALPN), {@code Hpack} its header compression, {@code Proto} the protocol
 * buffers' wire format, {@link io.jcni.plugins.internal.ipam.cluster.EtcdAnswers} the fields of etcd's answers:
 * nothing but {@code java.base}, so the image needs no new module.
 *
 * <p>It used to be etcd's JSON gateway over HTTP/1.1, which is simpler. But the gateway turns each request into a gRPC
 * call to its own member over loopback, so the member parses, encodes and sends every request twice. Measured on this
 * machine (three members on loopback, sequential compare-and-swap transactions of two puts, kept connections, 2,000 per
 * run, sent by Python's grpcio and http.client): 0.84–1.01 ms through gRPC against 1.36–1.58 ms through the gateway on
 * the leader (1.19–1.21 against 1.63–1.66 ms through a follower), and the members' CPU per transaction 1.29–1.80 ms
 * against 2.03–2.39 ms. In the simulated cluster, where etcd shares two cores with ten nodes, that CPU is what the
 * allocations wait for (the README, "Cluster IPAM at scale").
 */
package io.jcni.plugins.internal.ipam.cluster;
