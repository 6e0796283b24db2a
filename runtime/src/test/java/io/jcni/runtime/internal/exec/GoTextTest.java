package io.jcni.runtime.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Expected strings are what Go 1.19's {@code strconv.Quote} / {@code %q} prints for the same bytes. */
class GoTextTest {

    private static String q(String s) {
        return GoText.quote(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void quotesLikeGoForTheStderrLibcniQuotes() {
        assertThat(q("trivial-plugin: failure requested (mode=stderr-only command=ADD)\n"))
                .isEqualTo("\"trivial-plugin: failure requested (mode=stderr-only command=ADD)\\n\"");
        assertThat(q("trivial-plugin: this is not JSON {")).isEqualTo("\"trivial-plugin: this is not JSON {\"");
    }

    @Test
    void escapesLikeGo() {
        assertThat(q("a\"b\\c\t\r\u0007\b\f\u000b")).isEqualTo("\"a\\\"b\\\\c\\t\\r\\a\\b\\f\\v\"");
        assertThat(q("\u0000\u001b\u007f")).isEqualTo("\"\\x00\\x1b\\x7f\"");
        assertThat(q("héllo ✓ 日本")).isEqualTo("\"héllo ✓ 日本\"");
        assertThat(q("\u2028\u00a0")).isEqualTo("\"\\u2028\\u00a0\"");
        assertThat(q("\uD83D\uDE00")).as("a printable rune outside the BMP").isEqualTo("\"\uD83D\uDE00\"");
        assertThat(GoText.quote(new byte[] {'a', (byte) 0xff, (byte) 0xc3, 'b'})).isEqualTo("\"a\\xff\\xc3b\"");
    }

    @Test
    void exitTextsAreGosForExitsAndJavasSignalStatuses() {
        assertThat(GoText.exitText(1)).isEqualTo("exit status 1");
        assertThat(GoText.exitText(0)).isEqualTo("exit status 0");
        assertThat(GoText.exitText(137)).isEqualTo("signal: killed");
        assertThat(GoText.exitText(143)).isEqualTo("signal: terminated");
        assertThat(GoText.exitText(139)).isEqualTo("signal: segmentation fault");
        assertThat(GoText.exitText(128)).isEqualTo("exit status 128");
        assertThat(GoText.exitText(255)).isEqualTo("exit status 255");
    }
}
