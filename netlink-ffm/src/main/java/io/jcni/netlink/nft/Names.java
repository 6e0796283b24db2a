package io.jcni.netlink.nft;

import io.jcni.netlink.internal.wire.NfTablesH;
import java.nio.charset.StandardCharsets;

/** Checks of object names and comments, shared by the records of this package. */
final class Names {
    private Names() {}

    /**
     * Longest comment {@code nft} accepts, in bytes without the NUL ({@code NFTNL_UDATA_COMMENT_MAXLEN}: nft 1.0.6
     * takes 128 characters and writes them with a NUL, 129 bytes of user data). Go's knftables truncates its comments
     * to the same 128 ({@code CommentLengthMax}), so the Go plugins' longest comments fit.
     */
    static final int COMMENT_MAX_BYTES = 128;

    /**
     * A table, chain or set name: 1 to 255 bytes of UTF-8 without NUL ({@code NFT_NAME_MAXLEN} counts the NUL). Any
     * other character is legal in nftables ({@code nft} quotes such names).
     */
    static String check(String what, String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(what + " name must not be empty");
        }
        if (name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(what + " name must not contain NUL: " + name);
        }
        if (name.getBytes(StandardCharsets.UTF_8).length >= NfTablesH.NFT_NAME_MAXLEN) {
            throw new IllegalArgumentException(what + " name longer than " + (NfTablesH.NFT_NAME_MAXLEN - 1)
                    + " bytes: " + name);
        }
        return name;
    }

    /** A comment, or null for none: at most {@value #COMMENT_MAX_BYTES} bytes of UTF-8 without NUL. */
    static String checkComment(String comment) {
        if (comment == null) {
            return null;
        }
        if (comment.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("comment must not contain NUL: " + comment);
        }
        if (comment.getBytes(StandardCharsets.UTF_8).length > COMMENT_MAX_BYTES) {
            throw new IllegalArgumentException("comment longer than " + COMMENT_MAX_BYTES + " bytes: " + comment);
        }
        return comment;
    }
}
