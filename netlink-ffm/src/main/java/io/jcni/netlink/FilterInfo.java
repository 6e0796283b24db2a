package io.jcni.netlink;

import java.util.List;
import java.util.Objects;

/** The classifier of a traffic control filter and what is specific to it ({@code TCA_KIND}, {@code TCA_OPTIONS}). */
public sealed interface FilterInfo {

    /** {@code TCA_KIND}: {@code "u32"}, ... */
    String kind();

    /**
     * The u32 classifier: {@code u32 match u32 VALUE MASK at OFFSET ... flowid CLASSID action ...}. A key node
     * (what {@code tc filter add ... u32} creates) has keys; read back, a u32 filter also lists its hash table nodes
     * (no keys, a non-zero {@code divisor}) and the entry of its priority (no options at all: no keys, divisor 0).
     *
     * @param classId {@code TCA_U32_CLASSID} ({@code flowid}/{@code classid}), 0 for none
     * @param keys the selector's keys; a request's selector is terminal ({@code TC_U32_TERMINAL}) as tc's and the Go
     *     netlink library's
     * @param actions {@code TCA_U32_ACT}, run in order on a match
     * @param divisor {@code TCA_U32_DIVISOR} of a hash table node, 0 otherwise (never set in requests)
     */
    record U32(int classId, List<U32Key> keys, List<TcAction> actions, int divisor) implements FilterInfo {
        public U32 {
            keys = List.copyOf(keys);
            actions = List.copyOf(actions);
            if (keys.size() > 128) {
                throw new IllegalArgumentException("a u32 selector holds at most 128 keys: " + keys.size());
            }
        }

        /**
         * {@code u32 match u32 0 0 flowid CLASSID action ...}: every packet matches. This is the filter the Go
         * bandwidth plugin (through the Go netlink library) puts on the host veth's ingress qdisc.
         */
        public static U32 matchAll(int classId, List<TcAction> actions) {
            return new U32(classId, List.of(new U32Key(0, 0, 0, 0)), actions, 0);
        }

        @Override
        public String kind() {
            return "u32";
        }

        /** {@code u32 match 00000000/00000000 at 0 flowid 1:1 action mirred ...}. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("u32");
            if (divisor != 0) {
                sb.append(" divisor ").append(divisor);
            }
            for (U32Key k : keys) {
                sb.append(' ').append(k);
            }
            if (classId != 0) {
                sb.append(" flowid ").append(TcHandle.format(classId));
            }
            for (TcAction a : actions) {
                sb.append(" action ").append(a);
            }
            return sb.toString();
        }
    }

    /**
     * One key of a u32 selector ({@code struct tc_u32_key}): the packet matches when the 32-bit big-endian word at
     * {@code offset} (from the network header), masked with {@code mask}, equals {@code value}.
     *
     * @param value the value, as written in {@code match u32 VALUE MASK}: {@code 0x0a000001} is 10.0.0.1
     * @param mask the mask, likewise
     * @param offset the byte offset of the word, a multiple of 4
     * @param offsetMask {@code offmask}, 0 for a fixed offset
     */
    record U32Key(int value, int mask, int offset, int offsetMask) {
        public U32Key {
            if ((value & ~mask) != 0) {
                throw new IllegalArgumentException("u32 value " + Integer.toHexString(value)
                        + " has bits outside its mask " + Integer.toHexString(mask));
            }
        }

        /** {@code match 0a000001/ffffffff at 16}, as {@code tc} prints a key. */
        @Override
        public String toString() {
            return "match " + String.format("%08x/%08x", value, mask) + " at " + offset;
        }
    }

    /** Any other classifier; its options are not decoded. */
    record Other(String kind) implements FilterInfo {
        public Other {
            Objects.requireNonNull(kind, "kind");
        }
    }
}
