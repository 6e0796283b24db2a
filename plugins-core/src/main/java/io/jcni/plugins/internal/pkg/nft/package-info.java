/**
 * nftables steps the netfilter plugins share (Go's {@code pkg/} has them inside each backend; here they are one
 * place): ipMasq ({@code pkg.ip.IpMasq}), macspoofchk ({@code pkg.link.SpoofCheck}), the {@code firewall} and
 * {@code portmap} plugins. Everything goes through netlink-ffm's {@code io.jcni.netlink.nft} (never an exec of
 * {@code nft} or {@code iptables}), in the host namespace the plugin runs in ({@code Namespace.host().nft()}).
 *
 * <p>The discipline every netfilter plugin follows, and what each class here is for:
 * <ul>
 *   <li><b>One transaction per verb.</b> An ADD queues its tables, chains and rules (and the deletion of stale rules
 *   of the same attachment) in one {@code Transaction} and commits it with {@link
 *   io.jcni.plugins.internal.pkg.nft.NftSteps#commit}: the kernel applies all of it or nothing, so a refused ADD has
 *   changed nothing.</li>
 *   <li><b>Rules are found by their comment.</b> Every per-attachment rule carries a comment naming the attachment
 *   (for ipMasq and firewall Go's {@link io.jcni.plugins.internal.pkg.nft.AttachmentComment}, for portmap the
 *   container ID as Go's portmap writes it); DEL, CHECK and GC read the chain and pick rules by comment
 *   ({@link io.jcni.plugins.internal.pkg.nft.NftSteps#tagged}, {@code taggedWithPrefix}), then delete them by handle
 *   in one transaction ({@link io.jcni.plugins.internal.pkg.nft.NftSteps#delete}). A table or chain that does not
 *   exist reads as no rules: DEL is idempotent.</li>
 *   <li><b>Undo of a failed ADD.</b> After its commit an ADD registers {@link
 *   io.jcni.plugins.internal.pkg.nft.NftUndos.DeleteTaggedRules} (its own rules, by comment) and, if its transaction
 *   created the table, {@link io.jcni.plugins.internal.pkg.nft.NftUndos.RemoveTableIfUnused}: the table and its
 *   chains go too, in one transaction of "if empty" deletes that the kernel refuses when another attachment's rule
 *   (or anything else) has appeared meanwhile, so a concurrent ADD never loses its rules.</li>
 *   <li><b>GC</b> reads the rules of the network (by a comment prefix) and deletes those whose attachment is not
 *   in {@code cni.dev/valid-attachments}, in one transaction.</li>
 *   <li><b>STATUS</b> answers code 50 when the kernel has no nf_tables
 *   ({@link io.jcni.plugins.internal.pkg.nft.NftSteps#requireAvailable}).</li>
 * </ul>
 * <b>ipMasq's DEL</b> also removes its table once no attachment's rule is left in it
 * ({@link io.jcni.plugins.internal.pkg.nft.NftSteps#removeTableIfUnused}: one transaction of "if empty" deletes, which
 * the kernel refuses when a concurrent ADD, Go's or jcni's, put anything there meanwhile), so the last DEL leaves no
 * table where Go leaves one. ipMasq's ADD can afford it: it rebuilds its base chain in its own transaction. The
 * firewall's table and macspoofchk's {@code bridge nat} (a name ebtables-nft uses too) stay after the last DEL, as
 * Go's chains do: the firewall's ADD adds its jumps only when they are missing (Go's {@code InsertUnique}), so a
 * table removed between its read and its commit would come back without them.
 */
package io.jcni.plugins.internal.pkg.nft;
