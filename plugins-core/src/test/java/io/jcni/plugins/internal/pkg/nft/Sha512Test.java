package io.jcni.plugins.internal.pkg.nft;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** jcni's SHA-512 equals the JDK's on every length around the padding boundaries and on random inputs. */
class Sha512Test {

    @Test
    void equalsTheJdksDigest() throws Exception {
        Random random = new Random(512);
        for (int length = 0; length <= 300; length++) {
            byte[] data = new byte[length];
            random.nextBytes(data);
            assertThat(Sha512.digest(data)).as("length %d", length)
                    .isEqualTo(MessageDigest.getInstance("SHA-512").digest(data));
        }
        assertThat(Sha512.digest("abc".getBytes())).startsWith((byte) 0xdd, (byte) 0xaf, (byte) 0x35, (byte) 0xa1);
    }
}
