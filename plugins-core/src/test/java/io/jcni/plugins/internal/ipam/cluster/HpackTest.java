package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Hpack} against the examples of RFC 7541 Appendix C (decoded with one {@link Hpack.Decoder} per example
 * connection, so that later blocks check the dynamic table the earlier ones left), its Huffman code against Appendix
 * B, and malformed blocks, which must fail with an {@link IOException}.
 */
class HpackTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static List<String> decode(Hpack.Decoder decoder, String hex) throws IOException {
        byte[] block = hex(hex);
        List<String> fields = new ArrayList<>();
        decoder.decode(block, 0, block.length, (name, value) -> fields.add(name + ": " + value));
        return fields;
    }

    @Test
    void c2SingleRepresentations() throws IOException {
        Hpack.Decoder c21 = new Hpack.Decoder(4096);
        assertThat(decode(c21, "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
                .containsExactly("custom-key: custom-header");
        assertThat(decode(c21, "be")).containsExactly("custom-key: custom-header");

        Hpack.Decoder c22 = new Hpack.Decoder(4096);
        assertThat(decode(c22, "040c 2f73 616d 706c 652f 7061 7468")).containsExactly(":path: /sample/path");
        assertThatThrownBy(() -> decode(c22, "be")).isInstanceOf(IOException.class).hasMessageContaining("past");

        Hpack.Decoder c23 = new Hpack.Decoder(4096);
        assertThat(decode(c23, "1008 7061 7373 776f 7264 0673 6563 7265 74")).containsExactly("password: secret");
        assertThatThrownBy(() -> decode(c23, "be")).isInstanceOf(IOException.class);

        assertThat(decode(new Hpack.Decoder(4096), "82")).containsExactly(":method: GET");
    }

    @Test
    void c3RequestsWithoutHuffmanCoding() throws IOException {
        Hpack.Decoder d = new Hpack.Decoder(4096);
        assertThat(decode(d, "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(decode(d, "8286 84be 5808 6e6f 2d63 6163 6865")).containsExactly(":method: GET",
                ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache");
        assertThat(decode(d, "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"))
                .containsExactly(":method: GET", ":scheme: https", ":path: /index.html",
                        ":authority: www.example.com", "custom-key: custom-value");
        // The table is now custom-key, cache-control, :authority (newest first).
        assertThat(decode(d, "be bf c0")).containsExactly("custom-key: custom-value", "cache-control: no-cache",
                ":authority: www.example.com");
        assertThatThrownBy(() -> decode(d, "c1")).isInstanceOf(IOException.class);
    }

    @Test
    void c4RequestsWithHuffmanCoding() throws IOException {
        Hpack.Decoder d = new Hpack.Decoder(4096);
        assertThat(decode(d, "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(decode(d, "8286 84be 5886 a8eb 1064 9cbf")).containsExactly(":method: GET", ":scheme: http",
                ":path: /", ":authority: www.example.com", "cache-control: no-cache");
        assertThat(decode(d, "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"))
                .containsExactly(":method: GET", ":scheme: https", ":path: /index.html",
                        ":authority: www.example.com", "custom-key: custom-value");
        assertThat(decode(d, "be bf c0")).containsExactly("custom-key: custom-value", "cache-control: no-cache",
                ":authority: www.example.com");
    }

    private static final String DATE_21 = "date: Mon, 21 Oct 2013 20:13:21 GMT";
    private static final String LOCATION = "location: https://www.example.com";
    private static final String COOKIE = "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";

    /** The three responses of C.5 or C.6 with a 256-byte table, then what the table holds after them. */
    private static void responses(String first, String second, String third) throws IOException {
        Hpack.Decoder d = new Hpack.Decoder(256);
        assertThat(decode(d, first)).containsExactly(":status: 302", "cache-control: private", DATE_21, LOCATION);
        // :status: 302 is evicted to make room for 307.
        assertThat(decode(d, second)).containsExactly(":status: 307", "cache-control: private", DATE_21, LOCATION);
        assertThat(decode(d, third)).containsExactly(":status: 200", "cache-control: private",
                "date: Mon, 21 Oct 2013 20:13:22 GMT", LOCATION, "content-encoding: gzip", COOKIE);
        // Only the last three fit: set-cookie (98 bytes), content-encoding (52), date (65).
        assertThat(decode(d, "be bf c0")).containsExactly(COOKIE, "content-encoding: gzip",
                "date: Mon, 21 Oct 2013 20:13:22 GMT");
        assertThatThrownBy(() -> decode(d, "c1")).isInstanceOf(IOException.class);
    }

    @Test
    void c5ResponsesWithoutHuffmanCodingEvict() throws IOException {
        responses("4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133"
                + " 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                "4803 3330 37c1 c0bf",
                "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970"
                        + " 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b"
                        + " 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31");
    }

    @Test
    void c6ResponsesWithHuffmanCodingEvict() throws IOException {
        responses("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d"
                + " 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
                "4883 640e ffc1 c0bf",
                "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2"
                        + " e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5"
                        + " b106 3d50 07");
    }

    @Test
    void huffmanCodesAreAppendixBsAndRoundTrip() throws IOException {
        assertThat(Hpack.huffmanEncode("www.example.com")).isEqualTo(hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff"));
        assertThat(Hpack.huffmanEncode("custom-value")).isEqualTo(hex("25a8 49e9 5bb8 e8b4 bf"));
        // The shortest and the longest codes: '0' (5 bits), ' ' (6), 0x00 (13), 0xff (26), '\n' (30), padded.
        assertThat(Hpack.huffmanEncode("0")).isEqualTo(hex("07"));
        assertThat(Hpack.huffmanEncode(" ")).isEqualTo(hex("53"));
        assertThat(Hpack.huffmanEncode("\u0000")).isEqualTo(hex("ffc7"));
        assertThat(Hpack.huffmanEncode("\u00ff")).isEqualTo(hex("fffffbbf"));
        assertThat(Hpack.huffmanEncode("\n")).isEqualTo(hex("fffffff3"));
        assertThat(Hpack.huffmanEncode("")).isEmpty();

        StringBuilder all = new StringBuilder();
        for (int c = 0; c < 256; c++) {
            String one = String.valueOf((char) c);
            byte[] coded = Hpack.huffmanEncode(one);
            assertThat(Hpack.huffmanDecode(coded, 0, coded.length)).isEqualTo(one);
            all.append((char) c);
        }
        for (String s : List.of(all.toString(), all.reverse().toString(), "application/grpc", "grpc-status",
                "etcdserver: requested lease not found", "x".repeat(1000))) {
            byte[] coded = Hpack.huffmanEncode(s);
            byte[] framed = new byte[coded.length + 4];
            System.arraycopy(coded, 0, framed, 2, coded.length);
            assertThat(Hpack.huffmanDecode(framed, 2, coded.length)).isEqualTo(s);
        }
    }

    @Test
    void encodedFieldsDecodeToTheSame() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Hpack.encode(out, ":path", "/etcdserverpb.KV/Range");
        assertThat(out.toByteArray()[0]).isEqualTo((byte) 0x04); // :path's static index, a 4-bit prefix
        Hpack.encode(out, ":method", "POST");
        Hpack.encode(out, "content-type", "application/grpc");
        Hpack.encode(out, "user-agent", "jcni"); // static index 58: a prefix and one more byte
        Hpack.encode(out, "token", "é-" + "t".repeat(300)); // a literal name, a value longer than 127 bytes
        Hpack.encode(out, "te", "");
        byte[] block = out.toByteArray();
        List<String> fields = new ArrayList<>();
        Hpack.Decoder d = new Hpack.Decoder(4096);
        d.decode(block, 0, block.length, (name, value) -> fields.add(name + ": " + value));
        assertThat(fields).containsExactly(":path: /etcdserverpb.KV/Range", ":method: POST",
                "content-type: application/grpc", "user-agent: jcni", "token: é-" + "t".repeat(300), "te: ");
        // Literals without indexing leave the dynamic table empty.
        assertThatThrownBy(() -> decode(d, "be")).isInstanceOf(IOException.class);
    }

    @Test
    void tableSizeUpdatesAtTheStartOfABlockOnlyAndUpToTheAdvertisedSize() throws IOException {
        Hpack.Decoder d = new Hpack.Decoder(4096);
        assertThat(decode(d, "3fe11f 4003 6b65 7903 7661 6c be")).containsExactly("key: val", "key: val"); // 4096
        assertThat(decode(d, "20 3f e1 1f")).isEmpty(); // to 0, which empties the table, and back
        assertThatThrownBy(() -> decode(d, "be")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> decode(d, "3fe21f")).isInstanceOf(IOException.class).hasMessageContaining("4097");
        assertThatThrownBy(() -> decode(d, "82 20")).isInstanceOf(IOException.class)
                .hasMessageContaining("after a header field");
    }

    @Test
    void malformedInputFails() {
        Hpack.Decoder d = new Hpack.Decoder(4096);
        assertThatThrownBy(() -> decode(d, "80")).isInstanceOf(IOException.class).hasMessageContaining("index 0");
        assertThatThrownBy(() -> decode(d, "be")).isInstanceOf(IOException.class).hasMessageContaining("past");
        assertThatThrownBy(() -> decode(d, "7f00")).isInstanceOf(IOException.class).hasMessageContaining("past");
        assertThatThrownBy(() -> decode(d, "ff")).isInstanceOf(IOException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> decode(d, "ff ffffffff 0f")).isInstanceOf(IOException.class)
                .hasMessageContaining("overflow");
        assertThatThrownBy(() -> decode(d, "ff 80808080 8001")).isInstanceOf(IOException.class)
                .hasMessageContaining("overflow");
        assertThatThrownBy(() -> decode(d, "04 05 6162")).isInstanceOf(IOException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> decode(d, "04")).isInstanceOf(IOException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> decode(d, "00 03 6162")).isInstanceOf(IOException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> decode(d, "04 7fffff03")).isInstanceOf(IOException.class)
                .hasMessageContaining("exceeds");
        // '0' is 00000: its padding 000 is not ones; eight ones are more than 7 bits of padding; 30 ones are EOS.
        assertThatThrownBy(() -> decode(d, "04 81 00")).isInstanceOf(IOException.class)
                .hasMessageContaining("not all ones");
        assertThatThrownBy(() -> decode(d, "04 82 07ff")).isInstanceOf(IOException.class)
                .hasMessageContaining("longer than 7 bits");
        assertThatThrownBy(() -> decode(d, "04 84 ffffffff")).isInstanceOf(IOException.class)
                .hasMessageContaining("EOS");
        assertThatThrownBy(() -> Hpack.huffmanDecode(hex("00"), 0, 1)).isInstanceOf(IOException.class);
    }
}
