/**
 * nf_tables over netlink ({@code NETLINK_NETFILTER}): what {@code nft} does, without {@code nft}.
 *
 * <h2>Objects and their {@code nft} equivalents</h2>
 * <table>
 *   <caption>Typed operations</caption>
 *   <tr><th>API</th><th>nft</th><th>message</th></tr>
 *   <tr><td>{@link io.jcni.netlink.nft.Nftables#open(io.jcni.netlink.NetNs)}</td><td>{@code ip netns exec NS nft}</td>
 *       <td>a socket created inside the namespace</td></tr>
 *   <tr><td>{@link io.jcni.netlink.nft.Transaction#addTable}</td><td>{@code add table F T { comment "C" ; }}</td>
 *       <td>{@code NFT_MSG_NEWTABLE}</td></tr>
 *   <tr><td>{@link io.jcni.netlink.nft.Transaction#addChain} ({@link io.jcni.netlink.nft.Chain#base},
 *       {@link io.jcni.netlink.nft.Chain#regular})</td>
 *       <td>{@code add chain F T C { type nat hook prerouting priority -100 ; policy accept ; }}</td>
 *       <td>{@code NFT_MSG_NEWCHAIN}</td></tr>
 *   <tr><td>{@link io.jcni.netlink.nft.Transaction#addRule}, {@code insertRule}</td>
 *       <td>{@code add|insert rule F T C ... comment "TAG"}</td><td>{@code NFT_MSG_NEWRULE}</td></tr>
 *   <tr><td>{@code deleteRule}, {@code flushChain}, {@code deleteChain}, {@code deleteTable}</td>
 *       <td>{@code delete rule F T C handle H}, {@code flush chain}, {@code delete chain}, {@code delete table}</td>
 *       <td>{@code NFT_MSG_DELRULE} (with/without handle), {@code DELCHAIN}, {@code DELTABLE}</td></tr>
 *   <tr><td>{@code addSet}, {@code deleteSet}, {@code flushSet}, {@code addElements}, {@code deleteElements}</td>
 *       <td>{@code add set|map}, {@code delete set}, {@code flush set}, {@code add|delete element}</td>
 *       <td>{@code NFT_MSG_NEWSET}, {@code DELSET}, {@code NEWSETELEM}, {@code DELSETELEM}</td></tr>
 *   <tr><td>{@link io.jcni.netlink.nft.Transaction#commit()}</td><td>{@code nft -f FILE}</td>
 *       <td>one datagram: {@code NFNL_MSG_BATCH_BEGIN}, the messages, {@code NFNL_MSG_BATCH_END}</td></tr>
 *   <tr><td>{@link io.jcni.netlink.nft.NftablesHandle} reads</td><td>{@code nft -a list tables|chains|chain|table|set}
 *       </td><td>{@code NFT_MSG_GET*} dumps</td></tr>
 * </table>
 *
 * <p>Rules are lists of the kernel's expressions ({@link io.jcni.netlink.nft.Expr}: {@code meta}, {@code payload},
 * {@code cmp}, {@code bitwise}, {@code immediate} with data or a verdict, {@code lookup}, {@code nat},
 * {@code masq}, {@code ct}, {@code counter}, {@code fib}). {@link io.jcni.netlink.nft.Exprs} writes them statement by
 * statement exactly as {@code nft} 1.0.6 compiles {@code ip saddr A}, {@code ip daddr != N/P}, {@code tcp dport P},
 * {@code iifname "X"}, {@code ct state established,related}, {@code ct status dnat}, {@code fib daddr type local},
 * {@code ether saddr M}, {@code FIELD . FIELD @set}, {@code vmap}, {@code dnat to A:P}, {@code masquerade},
 * {@code jump}/{@code goto}/{@code return}/{@code accept}/{@code drop}: the tests compare every request with
 * {@code nft --debug=mnl} byte for byte, and the printed expressions with {@code nft --debug=netlink}, so
 * {@code nft list} shows our rules as their {@code nft} text. A comment is the rule's user data TLV
 * ({@code NFTNL_UDATA_RULE_COMMENT}) as {@code nft} writes it: plugins tag their rules with it and find them again by
 * it ({@link io.jcni.netlink.nft.Rule#comment()}, with the handle to delete them by).
 *
 * <h2>The layouts this covers (containernetworking/plugins, nftables backends)</h2>
 * <ul>
 *   <li><b>portmap</b> ({@code plugins/meta/portmap/portmap_nftables.go}): table {@code ip|ip6 cni_hostport} with a
 *       comment; regular chains {@code hostports}, {@code hostip_hostports}, {@code hostports_all} (flushed, then
 *       {@code jump hostip_hostports}, {@code jump hostports}); nat base chains {@code prerouting} and {@code output}
 *       at priority dstnat (-100) with {@code [conditions] fib daddr type local jump hostports_all}, and
 *       {@code masquerading} (postrouting, srcnat 100); per mapping
 *       {@code [ip daddr HOSTIP] tcp|udp|sctp dport HP dnat to CIP:CP comment "CONTAINERID"}; with snat
 *       {@code ip saddr CIP|0.0.0.0/0|127.0.0.1 ip daddr CIP masquerade comment "CONTAINERID"}. No sets or maps.
 *       (Go writes {@code priority dstnat} for the output hook, which nft 1.0.6's parser refuses; the kernel takes
 *       the number.)</li>
 *   <li><b>ipMasq</b> ({@code pkg/ip/ipmasq_nftables_linux.go}): table {@code inet cni_plugins_masquerade} with a
 *       comment; chain {@code masq_checks} with a comment; nat chain {@code postrouting} (srcnat), flushed, then
 *       {@code ip daddr 224.0.0.0/4 return}, {@code ip6 daddr ff00::/8 return}, {@code goto masq_checks}; per address
 *       {@code ip saddr A ip daddr != NET/P masquerade comment "HASH, net: N, if: I, id: C"} (at most 128 bytes).</li>
 *   <li><b>macspoofchk</b> ({@code pkg/link/spoofcheck.go}): table {@code bridge nat}, filter chain
 *       {@code PREROUTING} at priority -300 policy accept with {@code iifname "IF" jump cni-br-iface-ID};
 *       chains {@code cni-br-iface-ID} ({@code jump ...-mac}) and {@code cni-br-iface-ID-mac}
 *       ({@code ether saddr MAC return}, {@code drop}), all commented {@code macspoofchk-ID}.</li>
 *   <li><b>firewall</b> has no nftables backend in Go (iptables or firewalld); jcni's plugin writes Go's iptables
 *       chains in a table of its own, {@code inet jcni_firewall}: filter chain {@code FORWARD} (forward, priority
 *       filter, policy accept) jumping to {@code CNI-ISOLATION-STAGE-1} and {@code CNI-FORWARD}; {@code CNI-FORWARD}
 *       jumping to the admin chain ({@code CNI-ADMIN}), then per address {@code ip daddr A ct state
 *       established,related accept} and {@code ip saddr A accept} with the attachment's comment; the isolation
 *       chains with {@code iifname}/{@code oifname} matches and {@code drop}. The full layout is in the plugin's
 *       {@code FirewallRules}.</li>
 * </ul>
 *
 * <h2>Transactions and errors</h2>
 * A commit is one datagram; the kernel applies all of it or nothing. Every request carries {@code NLM_F_ACK} and its
 * own sequence number, so each answer is matched to its request: a failure names the request
 * ({@code NFT_MSG_NEWRULE ip t c comment "x" (message 5 of 7; the transaction was not applied)}), the errno and the
 * kernel's extended ACK, with the attribute it blames by C name ({@code NFTA_RULE_CHAIN}, or an expression's
 * attribute: {@code NFTA_RULE_EXPRESSIONS, expression 2 (payload), attribute 4}). Further failures are suppressed
 * exceptions. The kernel processes the datagram inside {@code sendto}, so every answer is queued when it returns and
 * is read without waiting. At most 65,536 changes per transaction (the socket's buffers grow to fit a large one).
 *
 * <h2>Known differences from {@code nft}</h2>
 * <ul>
 *   <li>{@code nft} merges adjacent equality matches of one header into one load ({@code ip saddr A ip daddr B} in
 *       an {@code ip} table becomes one 8-byte compare); {@link io.jcni.netlink.nft.Exprs} does not. The rule matches
 *       the same packets and {@code nft list} prints it the same.</li>
 *   <li>For a set with a concatenated key, {@code nft} adds a "typeof" TLV to the set's user data that only it reads;
 *       we write the byte orders only. {@code nft list} prints the set the same.</li>
 *   <li>The kernel reports {@code nat} back with its maximum registers equal to the minimum ones and
 *       {@code NF_NAT_RANGE_MAP_IPS} set: a rule read back is not always equal to the one written.</li>
 * </ul>
 */
package io.jcni.netlink.nft;
