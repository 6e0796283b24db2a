package io.jcni.runtime.internal.exec;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The bits of Go's text formatting that libcni's error messages are made of, so that jcni reports plugin failures in
 * the words operators already search for: {@code %q} quoting of a plugin's output, and the text of an
 * {@code *exec.ExitError} ({@code exit status 1}, {@code signal: killed}).
 */
public final class GoText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private GoText() {
    }

    /**
     * {@code strconv.Quote} of bytes: {@code "} delimited; printable runes kept; {@code \a \b \f \n \r \t \v \\ \"}
     * escaped; other control characters as {@code \xNN} (below U+0080) or {@code \u2028}-style escapes; bytes that are
     * not UTF-8 as {@code \xNN}.
     */
    public static String quote(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length + 2);
        out.append('"');
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        int i = 0;
        while (i < bytes.length) {
            int b = bytes[i] & 0xff;
            if (b < 0x80) {
                appendAscii(out, b);
                i++;
                continue;
            }
            int length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
            String rune = length > 1 && i + length <= bytes.length ? decode(decoder, bytes, i, length) : null;
            if (rune == null) {
                appendHexByte(out, b);
                i++;
                continue;
            }
            int cp = rune.codePointAt(0);
            if (isPrint(cp)) {
                out.append(rune);
            } else if (cp <= 0xffff) {
                out.append("\\u");
                appendHex(out, cp, 4);
            } else {
                out.append("\\U");
                appendHex(out, cp, 8);
            }
            i += length;
        }
        return out.append('"').toString();
    }

    private static String decode(CharsetDecoder decoder, byte[] bytes, int offset, int length) {
        try {
            CharBuffer chars = decoder.reset().decode(ByteBuffer.wrap(bytes, offset, length));
            return chars.length() == 0 ? null : chars.toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static void appendAscii(StringBuilder out, int c) {
        switch (c) {
            case 0x07 -> out.append("\\a");
            case '\b' -> out.append("\\b");
            case '\f' -> out.append("\\f");
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            case 0x0b -> out.append("\\v");
            case '\\' -> out.append("\\\\");
            case '"' -> out.append("\\\"");
            default -> {
                if (c < 0x20 || c == 0x7f) {
                    appendHexByte(out, c);
                } else {
                    out.append((char) c);
                }
            }
        }
    }

    private static void appendHexByte(StringBuilder out, int b) {
        out.append("\\x").append(HEX[b >> 4]).append(HEX[b & 0xf]);
    }

    private static void appendHex(StringBuilder out, int value, int digits) {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            out.append(HEX[(value >> shift) & 0xf]);
        }
    }

    /** Close to Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space. */
    private static boolean isPrint(int cp) {
        int type = Character.getType(cp);
        return switch (type) {
            case Character.CONTROL, Character.FORMAT, Character.PRIVATE_USE, Character.SURROGATE, Character.UNASSIGNED,
                    Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }

    /**
     * The text Go's {@code ExitError} gives for a process that ended with this status as Java reports it. Java folds
     * "killed by signal N" into status 128 + N, so a plugin that itself exits with 129-159 is reported as a signal:
     * the two cannot be told apart from a {@link Process}.
     */
    public static String exitText(int status) {
        if (status > 128 && status < 128 + 32) {
            return "signal: " + signalName(status - 128);
        }
        return "exit status " + status;
    }

    /** Go's names for Linux signals ({@code syscall.Signal.String()}). */
    static String signalName(int signal) {
        return switch (signal) {
            case 1 -> "hangup";
            case 2 -> "interrupt";
            case 3 -> "quit";
            case 4 -> "illegal instruction";
            case 5 -> "trace/breakpoint trap";
            case 6 -> "aborted";
            case 7 -> "bus error";
            case 8 -> "floating point exception";
            case 9 -> "killed";
            case 10 -> "user defined signal 1";
            case 11 -> "segmentation fault";
            case 12 -> "user defined signal 2";
            case 13 -> "broken pipe";
            case 14 -> "alarm clock";
            case 15 -> "terminated";
            default -> "signal " + signal;
        };
    }
}
