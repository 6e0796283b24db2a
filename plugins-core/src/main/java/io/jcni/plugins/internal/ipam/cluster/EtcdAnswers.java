package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link EtcdClient} reads from etcd's gRPC answers, by the field numbers of etcd's {@code rpc.proto} and {@code
 * kv.proto}: a range's kvs and count, a transaction's outcome and per-operation responses, a lease's ID, an auth
 * token. Fields it does not need are skipped. An answer that does not parse is {@link Kind#PROTOCOL}.
 */
final class EtcdAnswers {
    private EtcdAnswers() {
    }

    /** The kvs of a {@code RangeResponse} ({@code what}: the request, for the error text). */
    static List<Kv> kvs(byte[] rangeResponse, String what) throws EtcdException {
        try {
            return kvs(new Proto.Reader(rangeResponse));
        } catch (Proto.Malformed e) {
            throw protocol(what, e);
        }
    }

    /** The {@code count} of a {@code RangeResponse}. */
    static long count(byte[] rangeResponse) throws EtcdException {
        try {
            return varintOf(new Proto.Reader(rangeResponse), 4);
        } catch (Proto.Malformed e) {
            throw protocol(EtcdClient.RANGE, e);
        }
    }

    /** A {@code TxnResponse}: whether its compares held, the kvs of each range it ran, its revision. */
    static TxnResult txnResult(byte[] txnResponse) throws EtcdException {
        try {
            Proto.Reader r = new Proto.Reader(txnResponse);
            boolean ok = false;
            long revision = 0;
            List<List<Kv>> ranges = new ArrayList<>();
            while (r.next()) {
                switch (r.field()) {
                    case 1 -> revision = varintOf(r.message(), 3); // the ResponseHeader's revision
                    case 2 -> ok = r.varint() != 0;
                    case 3 -> {
                        // A ResponseOp: its response_range's kvs, none for a put or a delete.
                        Proto.Reader op = r.message();
                        List<Kv> kvs = new ArrayList<>();
                        while (op.next()) {
                            if (op.field() == 1) {
                                kvs = kvs(op.message());
                            } else {
                                op.skip();
                            }
                        }
                        ranges.add(kvs);
                    }
                    default -> r.skip();
                }
            }
            return new TxnResult(ok, ranges, revision);
        } catch (Proto.Malformed e) {
            throw protocol(EtcdClient.TXN, e);
        }
    }

    /** The {@code ID} of a {@code LeaseGrantResponse} (its {@code error}, if etcd set one, is the failure). */
    static long leaseId(byte[] leaseGrantResponse) throws EtcdException {
        try {
            Proto.Reader r = new Proto.Reader(leaseGrantResponse);
            long id = 0;
            String error = "";
            while (r.next()) {
                switch (r.field()) {
                    case 2 -> id = r.varint();
                    case 4 -> error = r.string();
                    default -> r.skip();
                }
            }
            if (!error.isEmpty()) {
                throw new EtcdException(Kind.PROTOCOL, "etcd " + EtcdClient.LEASE_GRANT + ": " + error);
            }
            if (id == 0) {
                throw new EtcdException(Kind.PROTOCOL, "etcd " + EtcdClient.LEASE_GRANT + ": no ID in the answer");
            }
            return id;
        } catch (Proto.Malformed e) {
            throw protocol(EtcdClient.LEASE_GRANT, e);
        }
    }

    /** The {@code token} of an {@code AuthenticateResponse} (empty if none). */
    static String token(byte[] authenticateResponse) throws EtcdException {
        try {
            Proto.Reader r = new Proto.Reader(authenticateResponse);
            String token = "";
            while (r.next()) {
                if (r.field() == 2) {
                    token = r.string();
                } else {
                    r.skip();
                }
            }
            return token;
        } catch (Proto.Malformed e) {
            throw protocol(EtcdClient.AUTHENTICATE, e);
        }
    }

    private static List<Kv> kvs(Proto.Reader rangeResponse) throws Proto.Malformed {
        List<Kv> out = new ArrayList<>();
        while (rangeResponse.next()) {
            if (rangeResponse.field() == 2) {
                out.add(kv(rangeResponse.message()));
            } else {
                rangeResponse.skip();
            }
        }
        return out;
    }

    /** An {@code mvccpb.KeyValue}. */
    private static Kv kv(Proto.Reader r) throws Proto.Malformed {
        byte[] key = new byte[0];
        byte[] value = new byte[0];
        long create = 0;
        long mod = 0;
        long lease = 0;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> key = r.bytes();
                case 2 -> create = r.varint();
                case 3 -> mod = r.varint();
                case 5 -> value = r.bytes();
                case 6 -> lease = r.varint();
                default -> r.skip();
            }
        }
        return new Kv(new String(key, StandardCharsets.UTF_8), value, create, mod, lease);
    }

    /** The varint field {@code field} of a message (its last value, as protocol buffers read it; 0 if absent). */
    private static long varintOf(Proto.Reader message, int field) throws Proto.Malformed {
        long value = 0;
        while (message.next()) {
            if (message.field() == field) {
                value = message.varint();
            } else {
                message.skip();
            }
        }
        return value;
    }

    private static EtcdException protocol(String what, Proto.Malformed e) {
        return new EtcdException(Kind.PROTOCOL, "etcd " + what + ": unreadable answer: " + e.getMessage(), e);
    }
}
