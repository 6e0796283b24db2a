package io.jcni.netlink.nft;

import java.util.Objects;

/**
 * An nftables table: {@code nft add table FAMILY NAME [{ comment "COMMENT" ; }]}.
 *
 * @param family the table's family
 * @param name 1-255 bytes, unique per family
 * @param handle the kernel's handle ({@code nft -a}); 0 in a table to create
 * @param flags {@code NFT_TABLE_F_*} as read ({@code dormant}, {@code owner}); 0 to create
 * @param comment the comment ({@code NFTNL_UDATA_TABLE_COMMENT} in the table's user data), or null
 */
public record Table(TableFamily family, String name, long handle, int flags, String comment) {
    public Table {
        Objects.requireNonNull(family, "family");
        Names.check("table", name);
        Names.checkComment(comment);
    }

    /** A table to create, with an optional comment. */
    public Table(TableFamily family, String name, String comment) {
        this(family, name, 0, 0, comment);
    }

    /** {@code "ip cni_hostport"}: family and name, as {@code nft} names a table. */
    public String id() {
        return family.nftName() + " " + name;
    }
}
