package io.jcni.plugins.internal.ipam.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * HPACK (RFC 7541), the header compression of HTTP/2, as much as a gRPC client to etcd needs without a dependency:
 * requests are encoded plainly (literals without indexing, no Huffman coding: a few short headers per call), and
 * responses are decoded in full, since etcd's Go server uses Huffman coding and the dynamic table.
 *
 * <p>The Huffman code of RFC 7541 Appendix B is canonical (codes of one length are consecutive in symbol order, each
 * length's first code follows the shorter lengths' last one), so the bit lengths alone define it: the codes and the
 * decoder's binary trie are built from them once.
 */
final class Hpack {
    /** Longest string literal accepted (its encoded length); etcd's headers are far shorter. */
    static final int MAX_STRING_LENGTH = 64 << 10;

    /** The static table (RFC 7541 Appendix A), name and value of indexes 1 to 61. */
    private static final String[] STATIC = {
            ":authority", "", ":method", "GET", ":method", "POST", ":path", "/", ":path", "/index.html",
            ":scheme", "http", ":scheme", "https", ":status", "200", ":status", "204", ":status", "206",
            ":status", "304", ":status", "400", ":status", "404", ":status", "500", "accept-charset", "",
            "accept-encoding", "gzip, deflate", "accept-language", "", "accept-ranges", "", "accept", "",
            "access-control-allow-origin", "", "age", "", "allow", "", "authorization", "", "cache-control", "",
            "content-disposition", "", "content-encoding", "", "content-language", "", "content-length", "",
            "content-location", "", "content-range", "", "content-type", "", "cookie", "", "date", "", "etag", "",
            "expect", "", "expires", "", "from", "", "host", "", "if-match", "", "if-modified-since", "",
            "if-none-match", "", "if-range", "", "if-unmodified-since", "", "last-modified", "", "link", "",
            "location", "", "max-forwards", "", "proxy-authenticate", "", "proxy-authorization", "", "range", "",
            "referer", "", "refresh", "", "retry-after", "", "server", "", "set-cookie", "",
            "strict-transport-security", "", "transfer-encoding", "", "user-agent", "", "vary", "", "via", "",
            "www-authenticate", ""};

    private static final int STATIC_SIZE = STATIC.length / 2;

    /** Bit length of the Huffman code of each byte value and of EOS (256), RFC 7541 Appendix B. */
    private static final byte[] LENGTHS = {
            13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0x00
            28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 0x10
             6, 10, 10, 12, 13,  6,  8, 11, 10, 10,  8, 11,  8,  6,  6,  6, // 0x20
             5,  5,  5,  6,  6,  6,  6,  6,  6,  6,  7,  8, 15,  6, 12, 10, // 0x30
            13,  6,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7, // 0x40
             7,  7,  7,  7,  7,  7,  7,  7,  8,  7,  8, 13, 19, 13, 14,  6, // 0x50
            15,  5,  6,  5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5, // 0x60
             6,  7,  6,  5,  5,  6,  7,  7,  7,  7,  7, 15, 11, 14, 13, 28, // 0x70
            20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 0x80
            24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 0x90
            22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 0xa0
            21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 0xb0
            26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 0xc0
            19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 0xd0
            20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 0xe0
            26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 0xf0
            30}; // EOS

    private static final int EOS = 256;

    /** The Huffman code of each symbol, in its low {@code LENGTHS[symbol]} bits. */
    private static final int[] CODES = new int[EOS + 1];

    /**
     * The decoding trie: node {@code n}'s children for bit 0 and 1 are at {@code 2n} and {@code 2n + 1}, an inner
     * node as its number (the root is 0), a leaf as {@code ~symbol}. 257 leaves need 256 inner nodes.
     */
    private static final int[] TRIE = new int[2 * EOS];

    static {
        int code = 0;
        for (int length = 1; length <= 30; length++, code <<= 1) {
            for (int symbol = 0; symbol <= EOS; symbol++) {
                if (LENGTHS[symbol] == length) {
                    CODES[symbol] = code++;
                }
            }
        }
        int nodes = 1;
        for (int symbol = 0; symbol <= EOS; symbol++) {
            int node = 0;
            for (int bit = LENGTHS[symbol] - 1; bit > 0; bit--) {
                int slot = 2 * node + ((CODES[symbol] >>> bit) & 1);
                if (TRIE[slot] == 0) {
                    TRIE[slot] = nodes++;
                }
                node = TRIE[slot];
            }
            TRIE[2 * node + (CODES[symbol] & 1)] = ~symbol;
        }
    }

    private Hpack() {
    }

    /**
     * Appends a header field as a literal without indexing (RFC 7541 6.2.2): the name by its static index when the
     * static table has it, else as a literal; neither string Huffman-coded. The name is written as ISO-8859-1 (HTTP/2
     * names are lowercase ASCII), the value as UTF-8.
     */
    static void encode(ByteArrayOutputStream out, String name, String value) {
        int index = 0;
        for (int i = 0; i < STATIC_SIZE && index == 0; i++) {
            if (STATIC[2 * i].equals(name)) {
                index = i + 1;
            }
        }
        writeInt(out, 4, index);
        if (index == 0) {
            writeString(out, name.getBytes(StandardCharsets.ISO_8859_1));
        }
        writeString(out, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void writeString(ByteArrayOutputStream out, byte[] bytes) {
        writeInt(out, 7, bytes.length);
        out.write(bytes, 0, bytes.length);
    }

    /** An integer with a {@code prefix}-bit prefix (RFC 7541 5.1), the first byte's high bits 0. */
    private static void writeInt(ByteArrayOutputStream out, int prefix, int value) {
        int max = (1 << prefix) - 1;
        if (value < max) {
            out.write(value);
            return;
        }
        out.write(max);
        for (value -= max; value >= 0x80; value >>>= 7) {
            out.write(0x80 | (value & 0x7f));
        }
        out.write(value);
    }

    /** Huffman-encodes the string's chars as ISO-8859-1 bytes (RFC 7541 5.2), padded with ones. */
    static byte[] huffmanEncode(String s) {
        byte[] in = s.getBytes(StandardCharsets.ISO_8859_1);
        long bits = 0;
        for (byte b : in) {
            bits += LENGTHS[b & 0xff];
        }
        byte[] out = new byte[(int) ((bits + 7) / 8)];
        long pending = 0;
        int count = 0;
        int n = 0;
        for (byte b : in) {
            int length = LENGTHS[b & 0xff];
            pending = (pending << length) | CODES[b & 0xff];
            for (count += length; count >= 8; count -= 8) {
                out[n++] = (byte) (pending >>> (count - 8));
            }
        }
        if (count > 0) {
            out[n] = (byte) ((pending << (8 - count)) | (0xff >>> count));
        }
        return out;
    }

    /** Huffman-decodes (RFC 7541 5.2) {@code data[offset, offset + length)}, one char per decoded byte. */
    static String huffmanDecode(byte[] data, int offset, int length) throws IOException {
        return new String(huffman(data, offset, length), StandardCharsets.ISO_8859_1);
    }

    private static byte[] huffman(byte[] data, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, data.length);
        byte[] out = new byte[length * 8 / 5]; // no code is shorter than 5 bits
        int n = 0;
        int node = 0;
        int depth = 0; // bits read since the last symbol
        boolean ones = true; // and all of them ones
        for (int i = offset; i < offset + length; i++) {
            for (int bit = 7; bit >= 0; bit--) {
                int b = (data[i] >>> bit) & 1;
                int next = TRIE[2 * node + b];
                depth++;
                ones &= b == 1;
                if (next >= 0) {
                    node = next;
                } else if (~next == EOS) {
                    throw new IOException("HPACK: EOS inside a Huffman-coded string");
                } else {
                    out[n++] = (byte) ~next;
                    node = 0;
                    depth = 0;
                    ones = true;
                }
            }
        }
        if (depth > 7) {
            throw new IOException("HPACK: Huffman padding longer than 7 bits");
        }
        if (!ones) {
            throw new IOException("HPACK: Huffman padding not all ones");
        }
        return Arrays.copyOf(out, n);
    }

    /** A table entry; {@code size} is RFC 7541 4.1's (name and value bytes plus 32). */
    private record Entry(String name, String value, int size) {
    }

    /**
     * Decodes the header blocks of one connection, in order, keeping the dynamic table between them. Names are
     * decoded as ISO-8859-1, values as UTF-8. Not thread-safe: a connection's blocks are decoded by its reader.
     */
    static final class Decoder {
        private final int maxTableSize;
        private final ArrayList<Entry> dynamic = new ArrayList<>(); // oldest first
        private int capacity;
        private int size;
        private byte[] buf;
        private int pos;
        private int end;

        /** {@code maxTableSize}: the {@code SETTINGS_HEADER_TABLE_SIZE} we advertise (4096 by default). */
        Decoder(int maxTableSize) {
            this.maxTableSize = maxTableSize;
            this.capacity = maxTableSize;
        }

        /**
         * Decodes one complete header block (the HEADERS and CONTINUATION payloads, without padding and priority),
         * calling {@code sink} with each field in order.
         *
         * @throws IOException on malformed input: a connection error (COMPRESSION_ERROR), the table is then unusable
         */
        void decode(byte[] block, int offset, int length, BiConsumer<String, String> sink) throws IOException {
            Objects.checkFromIndexSize(offset, length, block.length);
            buf = block;
            pos = offset;
            end = offset + length;
            try {
                boolean fields = false;
                while (pos < end) {
                    int b = buf[pos] & 0xff;
                    if (b >= 0x80) {
                        Entry e = entry(integer(7));
                        sink.accept(e.name(), e.value());
                    } else if (b >= 0x40) {
                        literal(6, true, sink);
                    } else if (b >= 0x20) {
                        if (fields) {
                            throw new IOException("HPACK: table size update after a header field");
                        }
                        int update = integer(5);
                        if (update > maxTableSize) {
                            throw new IOException("HPACK: table size update to " + update + " above " + maxTableSize);
                        }
                        capacity = update;
                        evict(capacity);
                        continue;
                    } else {
                        literal(4, false, sink);
                    }
                    fields = true;
                }
            } finally {
                buf = null;
            }
        }

        private void literal(int prefix, boolean indexing, BiConsumer<String, String> sink) throws IOException {
            int index = integer(prefix);
            String name = index == 0 ? new String(string(), StandardCharsets.ISO_8859_1) : entry(index).name();
            byte[] value = string();
            String text = new String(value, StandardCharsets.UTF_8);
            if (indexing) {
                int entrySize = name.length() + value.length + 32; // ISO-8859-1: one byte a char
                evict(capacity - entrySize);
                if (entrySize <= capacity) {
                    dynamic.add(new Entry(name, text, entrySize));
                    size += entrySize;
                }
            }
            sink.accept(name, text);
        }

        /** Evicts the oldest entries until the table's size is at most {@code target} (all of them when negative). */
        private void evict(int target) {
            while (size > target && !dynamic.isEmpty()) {
                size -= dynamic.remove(0).size();
            }
        }

        private Entry entry(int index) throws IOException {
            if (index == 0) {
                throw new IOException("HPACK: index 0 names no entry");
            }
            if (index <= STATIC_SIZE) {
                return new Entry(STATIC[2 * index - 2], STATIC[2 * index - 1], 0);
            }
            int i = index - STATIC_SIZE - 1;
            if (i >= dynamic.size()) {
                throw new IOException("HPACK: index " + index + " past the tables (" + dynamic.size()
                        + " dynamic entries)");
            }
            return dynamic.get(dynamic.size() - 1 - i);
        }

        /** A string literal (RFC 7541 5.2), its bytes Huffman-decoded when so coded. */
        private byte[] string() throws IOException {
            if (pos >= end) {
                throw new IOException("HPACK: truncated string");
            }
            boolean huffman = buf[pos] < 0;
            int length = integer(7);
            if (length > MAX_STRING_LENGTH) {
                throw new IOException("HPACK: string of " + length + " bytes exceeds " + MAX_STRING_LENGTH);
            }
            if (length > end - pos) {
                throw new IOException("HPACK: truncated string (" + length + " bytes, " + (end - pos) + " left)");
            }
            byte[] s = huffman ? huffman(buf, pos, length) : Arrays.copyOfRange(buf, pos, pos + length);
            pos += length;
            return s;
        }

        /** An integer with a {@code prefix}-bit prefix (RFC 7541 5.1), at most 2^31-1. */
        private int integer(int prefix) throws IOException {
            if (pos >= end) {
                throw new IOException("HPACK: truncated integer");
            }
            int max = (1 << prefix) - 1;
            int value = buf[pos++] & max;
            if (value < max) {
                return value;
            }
            long v = value;
            for (int shift = 0; shift <= 28; shift += 7) {
                if (pos >= end) {
                    throw new IOException("HPACK: truncated integer");
                }
                int b = buf[pos++] & 0xff;
                v += (long) (b & 0x7f) << shift;
                if (v > Integer.MAX_VALUE) {
                    break;
                }
                if (b < 0x80) {
                    return (int) v;
                }
            }
            throw new IOException("HPACK: integer overflow");
        }
    }
}
