package io.jcni.plugins.internal.pkg.nft;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The attachment comment equals Go's {@code commentForInstance} (ipMasq's nftables backend): expected values
 * computed independently ({@code hashlib.sha512(...).hexdigest()[:16]}, the same definition as Go's
 * {@code MustFormatHashWithPrefix(16, "", ...)}).
 */
class AttachmentCommentTest {

    @Test
    void equalsGosCommentForInstance() {
        assertThat(AttachmentComment.of("mynet", "eth0", "ctr1"))
                .isEqualTo("d23676b4f2d9fe04-7883a6f9ce71eedb, net: mynet, if: eth0, id: ctr1");
        assertThat(AttachmentComment.networkPrefix("mynet")).isEqualTo("d23676b4f2d9fe04");
        assertThat(AttachmentComment.attachmentPrefix("mynet", "eth0", "ctr1"))
                .isEqualTo("d23676b4f2d9fe04-7883a6f9ce71eedb");
    }

    @Test
    void aPodmanLengthCommentFitsAndALongerOneIsCutTo128Bytes() {
        String id = "a".repeat(64);
        assertThat(AttachmentComment.of("podman", "eth0", id))
                .isEqualTo("1d8721804f16f412-508af7b3b68a2aed, net: podman, if: eth0, id: " + id).hasSize(126);
        String cut = AttachmentComment.of("a-rather-long-network-name", "eth0", id);
        assertThat(cut).hasSize(128).startsWith(AttachmentComment.attachmentPrefix("a-rather-long-network-name",
                "eth0", id) + ", net: a-rather-long-network-name, if: eth0, id: aaaa");
    }

    @Test
    void quotesAreDroppedAndACutNeverSplitsACharacter() {
        assertThat(AttachmentComment.of("n", "e\"th0", "c")).endsWith(", net: n, if: eth0, id: c");
        String text = "x".repeat(127) + "é";
        assertThat(AttachmentComment.cut(text, 128)).isEqualTo("x".repeat(127));
        assertThat(AttachmentComment.cut("x".repeat(126) + "é", 128).getBytes(StandardCharsets.UTF_8)).hasSize(128);
    }
}
