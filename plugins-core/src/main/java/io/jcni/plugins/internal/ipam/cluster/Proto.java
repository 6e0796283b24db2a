package io.jcni.plugins.internal.ipam.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Protocol buffers' wire format, as much of it as etcd's messages need: varints (int64, uint64, bool, enums) and
 * length-delimited fields (bytes, strings, nested messages). {@link Writer} builds a message, {@link Reader} walks
 * one field by field; what the caller does not know it skips, as the format allows.
 */
final class Proto {
    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LENGTH_DELIMITED = 2;
    private static final int FIXED32 = 5;

    private Proto() {
    }

    /** A message that does not parse. */
    static final class Malformed extends IOException {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message);
        }
    }

    /** A message being built, fields appended in the order written. */
    static final class Writer {
        private byte[] buf = new byte[128];
        private int length;

        /** A varint field (int64, uint64, enum), written even when 0 (a member of a oneof has presence). */
        Writer varint(int field, long value) {
            tag(field, VARINT);
            raw(value);
            return this;
        }

        /** A varint field left out when 0 (proto3's default, as its encoders do for a plain field). */
        Writer varintIfSet(int field, long value) {
            return value == 0 ? this : varint(field, value);
        }

        Writer bool(int field, boolean value) {
            return value ? varint(field, 1) : this;
        }

        Writer bytes(int field, byte[] value) {
            tag(field, LENGTH_DELIMITED);
            raw(value.length);
            append(value, 0, value.length);
            return this;
        }

        Writer string(int field, String value) {
            return bytes(field, value.getBytes(StandardCharsets.UTF_8));
        }

        /** A nested message (an element of a repeated field when written again with the same number). */
        Writer message(int field, Writer value) {
            tag(field, LENGTH_DELIMITED);
            raw(value.length);
            append(value.buf, 0, value.length);
            return this;
        }

        boolean isEmpty() {
            return length == 0;
        }

        byte[] toBytes() {
            return Arrays.copyOf(buf, length);
        }

        private void tag(int field, int wireType) {
            raw(((long) field << 3) | wireType);
        }

        private void raw(long value) {
            ensure(10);
            while ((value & ~0x7FL) != 0) {
                buf[length++] = (byte) ((value & 0x7F) | 0x80);
                value >>>= 7;
            }
            buf[length++] = (byte) value;
        }

        private void append(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, length, len);
            length += len;
        }

        private void ensure(int more) {
            if (length + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, length + more));
            }
        }
    }

    /**
     * Walks a message: {@link #next()} reads the next field's tag, then exactly one of {@link #varint()}, {@link
     * #bytes()}, {@link #string()}, {@link #message()} or {@link #skip()} reads its value.
     */
    static final class Reader {
        private final byte[] buf;
        private int pos;
        private final int end;
        private int field;
        private int wireType;

        Reader(byte[] buf) {
            this(buf, 0, buf.length);
        }

        Reader(byte[] buf, int offset, int length) {
            this.buf = buf;
            this.pos = offset;
            this.end = offset + length;
        }

        /** Reads the next field's tag; false at the end of the message. */
        boolean next() throws Malformed {
            if (pos >= end) {
                return false;
            }
            long tag = raw();
            field = (int) (tag >>> 3);
            wireType = (int) (tag & 7);
            if (field <= 0 || tag >>> 3 > 0x1FFFFFFF) {
                throw new Malformed("field number " + (tag >>> 3));
            }
            return true;
        }

        int field() {
            return field;
        }

        long varint() throws Malformed {
            expect(VARINT);
            return raw();
        }

        byte[] bytes() throws Malformed {
            int n = lengthOfValue();
            byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
            pos += n;
            return out;
        }

        String string() throws Malformed {
            int n = lengthOfValue();
            String s = new String(buf, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }

        /** The nested message this field holds. */
        Reader message() throws Malformed {
            int n = lengthOfValue();
            Reader r = new Reader(buf, pos, n);
            pos += n;
            return r;
        }

        /** Skips the value of a field the caller does not read. */
        void skip() throws Malformed {
            switch (wireType) {
                case VARINT -> raw();
                case FIXED64 -> advance(8);
                case LENGTH_DELIMITED -> advance(lengthOfValue());
                case FIXED32 -> advance(4);
                default -> throw new Malformed("wire type " + wireType + " of field " + field);
            }
        }

        private int lengthOfValue() throws Malformed {
            expect(LENGTH_DELIMITED);
            long n = raw();
            if (n < 0 || n > end - pos) {
                throw new Malformed("field " + field + " of " + n + " bytes overruns its message");
            }
            return (int) n;
        }

        private void advance(int n) throws Malformed {
            if (n > end - pos) {
                throw new Malformed("field " + field + " overruns its message");
            }
            pos += n;
        }

        private void expect(int type) throws Malformed {
            if (wireType != type) {
                throw new Malformed("field " + field + " has wire type " + wireType + ", not " + type);
            }
        }

        private long raw() throws Malformed {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= end) {
                    throw new Malformed("a varint overruns its message");
                }
                byte b = buf[pos++];
                value |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw new Malformed("a varint longer than 10 bytes");
        }
    }
}
