package io.jcni.plugins.internal.pkg.ip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Nftables;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.plugins.internal.pkg.nft.AttachmentComment;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.IpPrefix;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ipMasq's nftables steps in a namespace standing for the host: Go's layout read back, two attachments' rules kept
 * apart, CHECK failing on a rule removed by hand, DEL idempotent, a failed ADD leaving no table of its own (and only
 * its own rules when the table was in use).
 */
class IpMasqTest {
    private static final TableFamily INET = TableFamily.INET;

    static List<IpPrefix> addresses(String... cidrs) throws CniException {
        List<IpPrefix> out = new java.util.ArrayList<>();
        for (String c : cidrs) {
            out.add(IpPrefix.parse(c, "test"));
        }
        return out;
    }

    @Test
    void twoAttachmentsKeepTheirRulesApartAndCheckDelAndGcFindThemByComment() throws Exception {
        try (Worlds w = Worlds.create(); NftablesHandle nft = Nftables.open(w.hostNs)) {
            PluginCall.Outcome a = Worlds.add(r -> {
                IpMasq.setup(w.host, addresses("10.88.0.5/16", "fd88::5/64"), "net1", "eth0", "ctr1", r.rollback());
                return null;
            });
            assertThat(a.status()).isZero();
            assertThat(Worlds.add(r -> {
                IpMasq.setup(w.host, addresses("10.88.0.6/16"), "net1", "eth0", "ctr2", r.rollback());
                return null;
            }).status()).isZero();

            assertThat(nft.findTable(INET, IpMasq.TABLE).orElseThrow().comment())
                    .isEqualTo("Masquerading for plugins from github.com/containernetworking/plugins");
            assertThat(nft.chains(INET, IpMasq.TABLE)).extracting(Chain::name)
                    .containsExactlyInAnyOrder("masq_checks", "postrouting");
            assertThat(nft.rules(INET, IpMasq.TABLE, "postrouting")).hasSize(3).extracting(Rule::exprs)
                    .containsExactlyElementsOf(IpMasq.postroutingRules());
            String c1 = AttachmentComment.of("net1", "eth0", "ctr1");
            String c2 = AttachmentComment.of("net1", "eth0", "ctr2");
            assertThat(nft.rules(INET, IpMasq.TABLE, "masq_checks")).extracting(Rule::comment)
                    .containsExactly(c1, c1, c2);

            IpMasq.check(w.host, addresses("10.88.0.5/16", "fd88::5/64"), "net1", "eth0", "ctr1");
            Rule v6 = nft.rules(INET, IpMasq.TABLE, "masq_checks").get(1);
            var tx = nft.transaction();
            tx.deleteRule(INET, IpMasq.TABLE, "masq_checks", v6.handle());
            tx.commit();
            assertThatThrownBy(() -> IpMasq.check(w.host, addresses("10.88.0.5/16", "fd88::5/64"), "net1", "eth0",
                    "ctr1")).isInstanceOfSatisfying(CniException.class, e -> {
                        assertThat(e.code()).isEqualTo(CniError.INTERNAL);
                        assertThat(e.getMessage()).contains("no masquerade rule for fd88::5/64");
                    });

            IpMasq.teardown(w.host, "net1", "eth0", "ctr1");
            IpMasq.teardown(w.host, "net1", "eth0", "ctr1");
            assertThat(nft.rules(INET, IpMasq.TABLE, "masq_checks")).extracting(Rule::comment).containsExactly(c2);
            IpMasq.check(w.host, addresses("10.88.0.6/16"), "net1", "eth0", "ctr2");
            IpMasq.teardown(w.host, "net1", "eth0", "ctr2");
            assertThat(nft.tables()).as("the last DEL removes the table").isEmpty();
            IpMasq.teardown(w.host, "net1", "eth0", "ctr2");
        }
    }

    @Test
    void aFailedAddRemovesTheTableItMadeButOnlyItsRulesFromATableInUse() throws Exception {
        try (Worlds w = Worlds.create(); NftablesHandle nft = Nftables.open(w.hostNs)) {
            PluginCall.Outcome failed = Worlds.add(r -> {
                IpMasq.setup(w.host, addresses("10.88.0.5/16"), "net1", "eth0", "ctr1", r.rollback());
                throw new CniException(CniError.INTERNAL, "a later step failed");
            });
            assertThat(failed.status()).isEqualTo(1);
            assertThat(nft.tables()).isEmpty();

            assertThat(Worlds.add(r -> {
                IpMasq.setup(w.host, addresses("10.88.0.6/16"), "net1", "eth0", "ctr2", r.rollback());
                return null;
            }).status()).isZero();
            assertThat(Worlds.add(r -> {
                IpMasq.setup(w.host, addresses("10.88.0.5/16"), "net1", "eth0", "ctr1", r.rollback());
                throw new CniException(CniError.INTERNAL, "a later step failed");
            }).status()).isEqualTo(1);
            assertThat(nft.rules(INET, IpMasq.TABLE, "masq_checks")).extracting(Rule::comment)
                    .containsExactly(AttachmentComment.of("net1", "eth0", "ctr2"));
        }
    }
}
