package io.jcni.netlink.internal.nft;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.ffm.OpenSocket;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.NetfilterH;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.internal.wire.Transport;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.NamedSet;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.SetElement;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** {@link NftablesHandle} over one {@link Channel} on a {@code NETLINK_NETFILTER} socket. */
public final class NftablesHandleImpl implements NftablesHandle {
    private final Channel channel;

    public NftablesHandleImpl(Transport transport) {
        this.channel = new Channel(transport);
    }

    /** A handle in {@code netns}, or in the calling thread's namespace when null (see {@code NamespaceThreads}). */
    public static NftablesHandleImpl open(NetNs netns) {
        return new NftablesHandleImpl(OpenSocket.in(netns, NetlinkH.NETLINK_NETFILTER));
    }

    @Override
    public List<Table> tables() {
        return channel.dump(new NftMessages.Dump(NfTablesH.NFT_MSG_GETTABLE, NetfilterH.NFPROTO_UNSPEC, null, null,
                null), new NftCodec.Tables(null));
    }

    @Override
    public Optional<Table> findTable(TableFamily family, String name) {
        try {
            return Optional.of(channel.get(new NftMessages.TableByName(NfTablesH.NFT_MSG_GETTABLE, family, name),
                    new NftCodec.Tables(name)));
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public List<Chain> chains(TableFamily family, String table) {
        Objects.requireNonNull(table, "table");
        return channel.dump(new NftMessages.Dump(NfTablesH.NFT_MSG_GETCHAIN, family.nfproto(),
                NftMessages.id(family, table), null, null), new NftCodec.Chains(family, table, null));
    }

    @Override
    public Optional<Chain> findChain(TableFamily family, String table, String name) {
        try {
            return Optional.of(channel.get(new NftMessages.ChainByName(NfTablesH.NFT_MSG_GETCHAIN, family, table,
                    name), new NftCodec.Chains(family, table, name)));
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public List<Rule> rules(TableFamily family, String table, String chain) {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(chain, "chain");
        return channel.dump(new NftMessages.Dump(NfTablesH.NFT_MSG_GETRULE, family.nfproto(),
                NftMessages.id(family, table) + " " + chain, table, chain), new NftCodec.Rules(family, table, chain));
    }

    @Override
    public List<Rule> rules(TableFamily family, String table) {
        Objects.requireNonNull(table, "table");
        return channel.dump(new NftMessages.Dump(NfTablesH.NFT_MSG_GETRULE, family.nfproto(),
                NftMessages.id(family, table), table, null), new NftCodec.Rules(family, table, null));
    }

    @Override
    public List<NamedSet> sets(TableFamily family, String table) {
        Objects.requireNonNull(table, "table");
        return channel.dump(new NftMessages.Dump(NfTablesH.NFT_MSG_GETSET, family.nfproto(),
                NftMessages.id(family, table), null, null), new NftCodec.Sets(family, table));
    }

    @Override
    public List<SetElement> elements(TableFamily family, String table, String set) {
        List<List<SetElement>> parts = channel.dump(new NftMessages.SetByName(NfTablesH.NFT_MSG_GETSETELEM, family,
                table, set), new NftCodec.Elements());
        List<SetElement> all = new ArrayList<>();
        for (List<SetElement> p : parts) {
            all.addAll(p);
        }
        return all;
    }

    @Override
    public Transaction transaction() {
        return new TransactionImpl(channel);
    }

    @Override
    public void close() {
        channel.close();
    }
}
