package io.jcni.netlink.nft;

import io.jcni.netlink.MacAddress;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A named set or map of a table: {@code nft add set FAMILY TABLE NAME { type KEY ; }}, or with {@code dataType}
 * {@code nft add map FAMILY TABLE NAME { type KEY : DATA ; }} (a verdict map when {@code dataType} is
 * {@link DataType#VERDICT}). A key of several types is a concatenation ({@code type ipv4_addr . inet_service}), each
 * part padded to 4 bytes. Elements come with {@link #key(Object...)} and {@link #data(Object)}.
 *
 * @param keyType the key's types, in order (one for a plain key)
 * @param dataType the data type of a map, or null for a set
 * @param handle the kernel's handle; 0 in a set to create
 */
public record NamedSet(TableFamily family, String table, String name, List<DataType> keyType, DataType dataType,
        long handle) {

    /**
     * Data types of keys and map data, with the numbers {@code nft} stores in {@code NFTA_SET_KEY_TYPE} (nftables'
     * {@code enum datatypes}; a concatenation shifts each part in by 6 bits), their size and byte order.
     */
    public enum DataType {
        VERDICT("verdict", 1, 0, false),
        IPV4_ADDR("ipv4_addr", 7, 4, true),
        IPV6_ADDR("ipv6_addr", 8, 16, true),
        ETHER_ADDR("ether_addr", 9, 6, true),
        INET_PROTO("inet_proto", 12, 1, true),
        INET_SERVICE("inet_service", 13, 2, true),
        MARK("mark", 19, 4, false),
        IFNAME("ifname", 41, 16, false);

        private final String nftName;
        private final int id;
        private final int length;
        private final boolean bigEndian;

        DataType(String nftName, int id, int length, boolean bigEndian) {
            this.nftName = nftName;
            this.id = id;
            this.length = length;
            this.bigEndian = bigEndian;
        }

        public String nftName() {
            return nftName;
        }

        /** nftables' number of the type. */
        public int id() {
            return id;
        }

        /** Bytes of a value (0 for a verdict, which is not data). */
        public int length() {
            return length;
        }

        /** Whether values are big-endian (addresses, protocols, ports) rather than host order (marks, names). */
        public boolean bigEndian() {
            return bigEndian;
        }

        public static DataType of(int id) {
            for (DataType t : values()) {
                if (t.id == id) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unsupported set data type " + id);
        }
    }

    /** Bits per part of a concatenated key type ({@code TYPE_BITS} in nftables). */
    static final int TYPE_BITS = 6;

    public NamedSet {
        Objects.requireNonNull(family, "family");
        Names.check("table", table);
        Names.check("set", name);
        keyType = List.copyOf(keyType);
        if (keyType.isEmpty() || keyType.contains(DataType.VERDICT)) {
            throw new IllegalArgumentException("a set key needs one or more data types, none a verdict");
        }
        if (keyLength(keyType) > Registers.MAX_DATA) {
            throw new IllegalArgumentException("key of " + keyLength(keyType) + " bytes exceeds "
                    + Registers.MAX_DATA);
        }
        if (dataType != null && dataType != DataType.VERDICT && dataType.length > Registers.MAX_DATA) {
            throw new IllegalArgumentException("map data of " + dataType.length + " bytes");
        }
    }

    /** {@code nft add set FAMILY TABLE NAME { type KEY [. KEY...] ; }}. */
    public static NamedSet set(TableFamily family, String table, String name, DataType... keyType) {
        return new NamedSet(family, table, name, List.of(keyType), null, 0);
    }

    /** {@code nft add map FAMILY TABLE NAME { type KEY [. KEY...] : DATA ; }}. */
    public static NamedSet map(TableFamily family, String table, String name, DataType dataType,
            DataType... keyType) {
        return new NamedSet(family, table, name, List.of(keyType), Objects.requireNonNull(dataType, "dataType"), 0);
    }

    public boolean isMap() {
        return dataType != null;
    }

    public boolean isVerdictMap() {
        return dataType == DataType.VERDICT;
    }

    /** {@code NFTA_SET_KEY_TYPE}: the type's number, or a concatenation's numbers shifted in 6 bits at a time. */
    public int keyTypeId() {
        int id = 0;
        for (DataType t : keyType) {
            id = id << TYPE_BITS | t.id;
        }
        return id;
    }

    /** {@code NFTA_SET_KEY_LEN}: the key's bytes; a concatenation's parts each take a multiple of 4. */
    public int keyLength() {
        return keyLength(keyType);
    }

    private static int keyLength(List<DataType> keyType) {
        if (keyType.size() == 1) {
            return keyType.getFirst().length;
        }
        int n = 0;
        for (DataType t : keyType) {
            n += (t.length + 3) & ~3;
        }
        return n;
    }

    /**
     * The key {@code parts} encode to, one per key type: {@link InetAddress} for addresses, {@link MacAddress} for
     * {@code ether_addr}, {@link Integer} for {@code inet_proto}, {@code inet_service} (a port) and {@code mark},
     * {@link String} for {@code ifname}.
     */
    public byte[] key(Object... parts) {
        if (parts.length != keyType.size()) {
            throw new IllegalArgumentException(name + " has " + keyType.size() + "-part keys, not " + parts.length);
        }
        if (parts.length == 1) {
            return value(keyType.getFirst(), parts[0]);
        }
        ByteBuffer b = ByteBuffer.allocate(keyLength());
        for (int i = 0; i < parts.length; i++) {
            byte[] v = value(keyType.get(i), parts[i]);
            b.put(v);
            b.position(b.position() + (((v.length + 3) & ~3) - v.length));
        }
        return b.array();
    }

    /** The data of a (non-verdict) map element, as {@link #key} encodes one part. */
    public byte[] data(Object value) {
        if (dataType == null || dataType == DataType.VERDICT) {
            throw new IllegalStateException(name + " is not a map of data");
        }
        return value(dataType, value);
    }

    static byte[] value(DataType type, Object v) {
        Objects.requireNonNull(v, "key part");
        switch (type) {
            case IPV4_ADDR, IPV6_ADDR -> {
                boolean ok = type == DataType.IPV4_ADDR ? v instanceof Inet4Address : v instanceof Inet6Address;
                if (!ok) {
                    throw new IllegalArgumentException(type.nftName + " needs an "
                            + (type == DataType.IPV4_ADDR ? "IPv4" : "IPv6") + " address: " + v);
                }
                return ((InetAddress) v).getAddress();
            }
            case ETHER_ADDR -> {
                if (v instanceof MacAddress mac) {
                    return mac.bytes();
                }
                throw new IllegalArgumentException("ether_addr needs a MacAddress: " + v);
            }
            case INET_PROTO -> {
                return new byte[] {(byte) number(v, 0, 255, type)};
            }
            case INET_SERVICE -> {
                int port = number(v, 0, 65535, type);
                return new byte[] {(byte) (port >>> 8), (byte) port};
            }
            case MARK -> {
                return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(number(v, Integer.MIN_VALUE,
                        Integer.MAX_VALUE, type)).array();
            }
            case IFNAME -> {
                if (!(v instanceof String s)) {
                    throw new IllegalArgumentException("ifname needs a String: " + v);
                }
                return Exprs.ifname(s);
            }
            default -> throw new IllegalArgumentException(type.nftName + " is not a key type");
        }
    }

    private static int number(Object v, int min, int max, DataType type) {
        if (!(v instanceof Integer i) || i < min || i > max) {
            throw new IllegalArgumentException(type.nftName + " needs an integer in [" + min + ", " + max + "]: " + v);
        }
        return i;
    }
}
