package io.jcni.netlink.internal.nft;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the messages {@code nft --debug=mnl} prints (libmnl's {@code mnl_nlmsg_fprintf}: per message its length, type,
 * the flags R/M/A/E, sequence number, port id, then the family header and every attribute as a header line
 * {@code |len|flags|type|} followed by its payload in 4-byte lines, padding included) back into bytes. Nests print
 * their header only, their children follow, so concatenating the lines yields the message as sent. libmnl shows only
 * the low four flags: {@code NLM_F_CREATE}, {@code NLM_F_APPEND} and the like are not visible.
 */
final class MnlDump {
    private MnlDump() {}

    /** One message: type, the visible flags (bits of R=REQUEST, M=MULTI, A=ACK, E=ECHO), the bytes after nlmsghdr. */
    record Message(int type, int visibleFlags, byte[] body) {
        String hex() {
            return HexFormat.of().formatHex(body);
        }
    }

    private static final Pattern ANSI = Pattern.compile("\u001b\\[[0-9;]*m");
    private static final Pattern LENGTH = Pattern.compile("^\\|\\s+(\\d{10})\\s+\\|\\s+\\| message length \\|");
    private static final Pattern TYPE = Pattern.compile("^\\| (\\d{5}) \\| (....) \\|\\s+\\|  type \\| flags  \\|");
    private static final Pattern ATTR = Pattern.compile("^\\|(\\d{5})\\|(.)(.)\\|(\\d{5})\\|\\s+\\|len \\|flags\\| type\\|");
    private static final Pattern BYTES = Pattern.compile("^\\| ([0-9a-f]{2}) ([0-9a-f]{2}) ([0-9a-f]{2}) ([0-9a-f]{2})"
            + "  \\|\\s+\\|\\s+(extra header|data)\\s+\\|");

    static List<Message> parse(String output) {
        List<Message> out = new ArrayList<>();
        int type = -1;
        int flags = 0;
        int length = 0;
        ByteArrayOutputStream body = null;
        for (String raw : output.split("\n")) {
            String line = ANSI.matcher(raw).replaceAll("");
            Matcher m;
            if ((m = LENGTH.matcher(line)).find()) {
                if (body != null) {
                    out.add(finish(type, flags, length, body));
                }
                length = Integer.parseInt(m.group(1));
                body = new ByteArrayOutputStream();
                type = -1;
            } else if (body == null) {
                continue;
            } else if ((m = TYPE.matcher(line)).find()) {
                type = Integer.parseInt(m.group(1));
                String f = m.group(2);
                flags = (f.charAt(0) == 'R' ? 1 : 0) | (f.charAt(1) == 'M' ? 2 : 0) | (f.charAt(2) == 'A' ? 4 : 0)
                        | (f.charAt(3) == 'E' ? 8 : 0);
            } else if ((m = ATTR.matcher(line)).find()) {
                int len = Integer.parseInt(m.group(1));
                int t = Integer.parseInt(m.group(4)) | (m.group(2).equals("N") ? 0x8000 : 0)
                        | (m.group(3).equals("B") ? 0x4000 : 0);
                body.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putShort((short) len)
                        .putShort((short) t).array());
            } else if ((m = BYTES.matcher(line)).find()) {
                for (int i = 1; i <= 4; i++) {
                    body.write(Integer.parseInt(m.group(i), 16));
                }
            }
        }
        if (body != null) {
            out.add(finish(type, flags, length, body));
        }
        return out;
    }

    private static Message finish(int type, int flags, int length, ByteArrayOutputStream body) {
        byte[] bytes = body.toByteArray();
        int expected = ((length + 3) & ~3) - 16;
        if (bytes.length != expected) {
            throw new IllegalStateException("message of type " + type + ": " + bytes.length + " body bytes parsed, "
                    + "nlmsg_len " + length + " says " + expected);
        }
        return new Message(type, flags, bytes);
    }

    /** The messages from the batch begin marker to the end marker, both included. */
    static List<Message> batch(List<Message> messages) {
        int begin = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i).type() == 16) {
                begin = i;
            } else if (messages.get(i).type() == 17 && begin >= 0) {
                return messages.subList(begin, i + 1);
            }
        }
        throw new IllegalStateException("no batch in " + messages.size() + " messages");
    }
}
