package io.jcni.plugins.internal.pkg.nft;

import java.nio.charset.StandardCharsets;

/**
 * The comment that tags an attachment's rules, as Go's ipMasq nftables backend writes it
 * ({@code pkg/ip/ipmasq_nftables_linux.go}, {@code commentForInstance}): {@code "NETHASH-IDHASH, net: NETWORK, if:
 * IFNAME, id: CONTAINERID"}, where {@code NETHASH} is the first 16 hex digits of SHA-512 of the network name and
 * {@code IDHASH} those of {@code "IFNAME:CONTAINERID"}; double quotes are dropped from the names, and the whole is cut
 * to 128 bytes (knftables' {@code CommentLengthMax}). The hashes come first so that the comment stays unique when the
 * names are cut, and a network's rules share the prefix {@code NETHASH} (what GC looks for).
 *
 * <p>Written byte-identical to Go's so that a node can switch between Go's plugins and jcni's: each finds, checks and
 * deletes the other's rules. One difference: Go cuts at byte 128 even inside a multi-byte UTF-8 character (the
 * comment is then not valid UTF-8); jcni cuts before that character. CNI names are ASCII in practice (container IDs
 * and network names are restricted to it; only an interface name could hold such a character).
 */
public final class AttachmentComment {
    /** knftables' {@code CommentLengthMax}, nft's limit: 128 bytes. */
    public static final int MAX_BYTES = 128;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private AttachmentComment() {
    }

    /** Go's {@code hashForNetwork}: the prefix every comment of {@code network}'s rules starts with. */
    public static String networkPrefix(String network) {
        return hash16(network);
    }

    /** Go's {@code hashForInstance}: {@code NETHASH-IDHASH}, what the comment of one attachment starts with. */
    public static String attachmentPrefix(String network, String ifName, String containerId) {
        return hash16(network) + "-" + hash16(ifName + ":" + containerId);
    }

    /** Go's {@code commentForInstance}: the full comment of the attachment's rules. */
    public static String of(String network, String ifName, String containerId) {
        String comment = attachmentPrefix(network, ifName, containerId) + ", net: " + network.replace("\"", "")
                + ", if: " + ifName.replace("\"", "") + ", id: " + containerId.replace("\"", "");
        return cut(comment, MAX_BYTES);
    }

    /** {@code text} cut to at most {@code maxBytes} bytes of UTF-8, never inside a character. */
    static String cut(String text, int maxBytes) {
        if (text.getBytes(StandardCharsets.UTF_8).length <= maxBytes) {
            return text;
        }
        int bytes = 0;
        int end = 0;
        while (end < text.length()) {
            int cp = text.codePointAt(end);
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + len > maxBytes) {
                break;
            }
            bytes += len;
            end += Character.charCount(cp);
        }
        return text.substring(0, end);
    }

    /** Go's {@code MustFormatHashWithPrefix(16, "", text)}: the first 16 hex digits of SHA-512 of its UTF-8 bytes. */
    static String hash16(String text) {
        byte[] digest = Sha512.digest(text.getBytes(StandardCharsets.UTF_8));
        char[] out = new char[16];
        for (int i = 0; i < 8; i++) {
            out[2 * i] = HEX[(digest[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[digest[i] & 0xf];
        }
        return new String(out);
    }
}
