package io.jcni.plugins.internal.ipam.dhcp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A DHCPv4 message (RFC 2131 section 2, options RFC 2132): the fixed BOOTP fields and the options after the magic
 * cookie. Encoding writes the options in insertion order, splits a value longer than 255 bytes into consecutive
 * options of the same code (RFC 3396), ends with option 255 and pads to BOOTP's 300 bytes. Decoding joins split
 * options, reads the {@code file} and {@code sname} fields as options when option 52 says they are overloaded, and
 * refuses anything malformed with a {@link Malformed} that says what.
 */
final class DhcpMessage {
    static final int BOOTREQUEST = 1;
    static final int BOOTREPLY = 2;
    /** The fixed part before the magic cookie. */
    static final int FIXED_LENGTH = 236;
    private static final int MIN_LENGTH = 300;
    private static final byte[] MAGIC = {99, (byte) 130, 83, 99};
    /** The broadcast bit of {@code flags}. */
    static final int FLAG_BROADCAST = 0x8000;

    // Message types, option 53 (RFC 2132 9.6).
    static final int DISCOVER = 1;
    static final int OFFER = 2;
    static final int REQUEST = 3;
    static final int DECLINE = 4;
    static final int ACK = 5;
    static final int NAK = 6;
    static final int RELEASE = 7;

    // Option codes (RFC 2132, RFC 3442, RFC 3397).
    static final int OPT_PAD = 0;
    static final int OPT_SUBNET_MASK = 1;
    static final int OPT_ROUTER = 3;
    static final int OPT_DNS = 6;
    static final int OPT_HOST_NAME = 12;
    static final int OPT_DOMAIN_NAME = 15;
    static final int OPT_STATIC_ROUTES = 33;
    static final int OPT_REQUESTED_IP = 50;
    static final int OPT_LEASE_TIME = 51;
    static final int OPT_OVERLOAD = 52;
    static final int OPT_MESSAGE_TYPE = 53;
    static final int OPT_SERVER_ID = 54;
    static final int OPT_PARAMETER_REQUEST_LIST = 55;
    static final int OPT_MESSAGE = 56;
    static final int OPT_MAX_MESSAGE_SIZE = 57;
    static final int OPT_RENEWAL_TIME = 58;
    static final int OPT_REBINDING_TIME = 59;
    static final int OPT_CLIENT_ID = 61;
    static final int OPT_DOMAIN_SEARCH = 119;
    static final int OPT_CLASSLESS_ROUTES = 121;
    static final int OPT_END = 255;

    /** A message that is not DHCP or breaks its format. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message);
        }
    }

    final int op;
    final int xid;
    final int secs;
    final int flags;
    final byte[] ciaddr;
    final byte[] yiaddr;
    final byte[] siaddr;
    final byte[] giaddr;
    /** The client's hardware address (16 bytes as on the wire; Ethernet uses the first 6). */
    final byte[] chaddr;
    private final Map<Integer, byte[]> options;

    DhcpMessage(int op, int xid, int secs, int flags, byte[] ciaddr, byte[] yiaddr, byte[] siaddr, byte[] giaddr,
            byte[] chaddr, Map<Integer, byte[]> options) {
        this.op = op;
        this.xid = xid;
        this.secs = secs;
        this.flags = flags;
        this.ciaddr = address(ciaddr);
        this.yiaddr = address(yiaddr);
        this.siaddr = address(siaddr);
        this.giaddr = address(giaddr);
        this.chaddr = Arrays.copyOf(chaddr, 16);
        this.options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }

    private static byte[] address(byte[] a) {
        if (a == null) {
            return new byte[4];
        }
        if (a.length != 4) {
            throw new IllegalArgumentException("an IPv4 address has 4 bytes, not " + a.length);
        }
        return a.clone();
    }

    /** A client's request ({@code op} 1, Ethernet) of message type {@code type} with {@code options} after it. */
    static DhcpMessage request(int type, int xid, int flags, byte[] ciaddr, byte[] mac, Map<Integer, byte[]> options) {
        Map<Integer, byte[]> all = new LinkedHashMap<>();
        all.put(OPT_MESSAGE_TYPE, new byte[] {(byte) type});
        all.putAll(options);
        return new DhcpMessage(BOOTREQUEST, xid, 0, flags, ciaddr, null, null, null, mac, all);
    }

    /** Option {@code code}'s value (joined if it was split), or null. */
    byte[] option(int code) {
        byte[] value = options.get(code);
        return value == null ? null : value.clone();
    }

    boolean has(int code) {
        return options.containsKey(code);
    }

    /** The option codes in the order they came. */
    List<Integer> optionCodes() {
        return new ArrayList<>(options.keySet());
    }

    /** Option 53, or 0 when absent or malformed. */
    int messageType() {
        byte[] type = options.get(OPT_MESSAGE_TYPE);
        return type != null && type.length == 1 ? type[0] & 0xff : 0;
    }

    /** A 4-byte option as an address, or null when absent or not 4 bytes long (or longer: the first one). */
    byte[] addressOption(int code) {
        byte[] value = options.get(code);
        return value == null || value.length < 4 ? null : Arrays.copyOf(value, 4);
    }

    /** A 32-bit unsigned option (seconds), or -1 when absent or not 4 bytes long. */
    long secondsOption(int code) {
        byte[] value = options.get(code);
        if (value == null || value.length != 4) {
            return -1;
        }
        return ((long) (value[0] & 0xff) << 24) | ((value[1] & 0xff) << 16) | ((value[2] & 0xff) << 8)
                | (value[3] & 0xff);
    }

    // ---------------------------------------------------------------------------------------------- encoding

    byte[] encode() {
        int size = FIXED_LENGTH + MAGIC.length + 1;
        for (Map.Entry<Integer, byte[]> e : options.entrySet()) {
            int length = e.getValue().length;
            size += length + 2 * Math.max(1, (length + 254) / 255);
        }
        byte[] out = new byte[Math.max(MIN_LENGTH, size)];
        out[0] = (byte) op;
        out[1] = 1; // htype: Ethernet
        out[2] = 6; // hlen
        putInt(out, 4, xid);
        out[8] = (byte) (secs >>> 8);
        out[9] = (byte) secs;
        out[10] = (byte) (flags >>> 8);
        out[11] = (byte) flags;
        System.arraycopy(ciaddr, 0, out, 12, 4);
        System.arraycopy(yiaddr, 0, out, 16, 4);
        System.arraycopy(siaddr, 0, out, 20, 4);
        System.arraycopy(giaddr, 0, out, 24, 4);
        System.arraycopy(chaddr, 0, out, 28, 16);
        System.arraycopy(MAGIC, 0, out, FIXED_LENGTH, 4);
        int at = FIXED_LENGTH + 4;
        for (Map.Entry<Integer, byte[]> e : options.entrySet()) {
            byte[] value = e.getValue();
            int done = 0;
            do {
                int chunk = Math.min(255, value.length - done);
                out[at++] = (byte) (int) e.getKey();
                out[at++] = (byte) chunk;
                System.arraycopy(value, done, out, at, chunk);
                at += chunk;
                done += chunk;
            } while (done < value.length);
        }
        out[at] = (byte) OPT_END;
        return out;
    }

    private static void putInt(byte[] out, int at, int value) {
        out[at] = (byte) (value >>> 24);
        out[at + 1] = (byte) (value >>> 16);
        out[at + 2] = (byte) (value >>> 8);
        out[at + 3] = (byte) value;
    }

    // ---------------------------------------------------------------------------------------------- decoding

    static DhcpMessage decode(byte[] data, int offset, int length) throws Malformed {
        if (length < FIXED_LENGTH + 4) {
            throw new Malformed("a DHCP message of " + length + " bytes (at least " + (FIXED_LENGTH + 4) + ")");
        }
        byte[] m = Arrays.copyOfRange(data, offset, offset + length);
        if (m[FIXED_LENGTH] != MAGIC[0] || m[FIXED_LENGTH + 1] != MAGIC[1] || m[FIXED_LENGTH + 2] != MAGIC[2]
                || m[FIXED_LENGTH + 3] != MAGIC[3]) {
            throw new Malformed("no DHCP magic cookie (a BOOTP message?)");
        }
        int op = m[0] & 0xff;
        if (op != BOOTREQUEST && op != BOOTREPLY) {
            throw new Malformed("op " + op);
        }
        int xid = ((m[4] & 0xff) << 24) | ((m[5] & 0xff) << 16) | ((m[6] & 0xff) << 8) | (m[7] & 0xff);
        int secs = ((m[8] & 0xff) << 8) | (m[9] & 0xff);
        int flags = ((m[10] & 0xff) << 8) | (m[11] & 0xff);
        Map<Integer, byte[]> options = new LinkedHashMap<>();
        readOptions(m, FIXED_LENGTH + 4, m.length, options, "options");
        byte[] overload = options.get(OPT_OVERLOAD);
        if (overload != null) {
            if (overload.length != 1 || overload[0] < 1 || overload[0] > 3) {
                throw new Malformed("option 52 (overload) is not 1, 2 or 3");
            }
            if ((overload[0] & 1) != 0) {
                readOptions(m, 108, 236, options, "the file field");
            }
            if ((overload[0] & 2) != 0) {
                readOptions(m, 44, 108, options, "the sname field");
            }
            options.remove(OPT_OVERLOAD); // read: encoding writes every option into the options field
        }
        return new DhcpMessage(op, xid, secs, flags, Arrays.copyOfRange(m, 12, 16), Arrays.copyOfRange(m, 16, 20),
                Arrays.copyOfRange(m, 20, 24), Arrays.copyOfRange(m, 24, 28), Arrays.copyOfRange(m, 28, 44), options);
    }

    private static void readOptions(byte[] m, int from, int to, Map<Integer, byte[]> into, String where)
            throws Malformed {
        int at = from;
        while (at < to) {
            int code = m[at] & 0xff;
            if (code == OPT_END) {
                return;
            }
            if (code == OPT_PAD) {
                at++;
                continue;
            }
            if (at + 1 >= to) {
                throw new Malformed("option " + code + " in " + where + " has no length");
            }
            int length = m[at + 1] & 0xff;
            if (at + 2 + length > to) {
                throw new Malformed("option " + code + " in " + where + " runs past the end");
            }
            byte[] value = Arrays.copyOfRange(m, at + 2, at + 2 + length);
            byte[] before = into.get(code);
            if (before != null) { // RFC 3396: a long option split into several
                byte[] joined = Arrays.copyOf(before, before.length + value.length);
                System.arraycopy(value, 0, joined, before.length, value.length);
                value = joined;
            }
            into.put(code, value);
            at += 2 + length;
        }
        // Servers often omit option 255 when the field is full; running out of bytes ends the options too.
    }
}
