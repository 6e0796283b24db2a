package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.ipam.cluster.EtcdConfig.Endpoint;
import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import io.jcni.spec.CniException;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonBoolean;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * What {@link EtcdClient} reads from the JSON gateway's answers: kvs whose keys and values are base64, int64 fields
 * written as strings, a transaction's per-operation responses. An answer that does not have the shape etcd gives is
 * {@link Kind#PROTOCOL}.
 */
final class EtcdAnswers {
    private EtcdAnswers() {
    }

    /** An answer's body as the object etcd sends, from {@code endpoint} to {@code path}. */
    static JsonObject parse(byte[] body, String path, Endpoint endpoint) throws EtcdException {
        try {
            Json json = Json.parse(body);
            if (json instanceof JsonObject o) {
                return o;
            }
        } catch (CniException e) {
            throw new EtcdException(Kind.PROTOCOL, "etcd " + endpoint + " " + path + ": unreadable answer: "
                    + e.error().msg(), e);
        }
        throw new EtcdException(Kind.PROTOCOL, "etcd " + endpoint + " " + path + ": the answer is not an object");
    }

    /** The text of an error answer: its {@code message}, its {@code error}, or its HTTP status. */
    static String errorText(JsonObject json, HttpChannel.Response response) {
        for (String key : List.of("message", "error")) {
            Optional<Json> v = json.get(key);
            if (v.isPresent() && v.get() instanceof JsonString s && !s.value().isEmpty()) {
                return s.value();
            }
        }
        return "HTTP " + response.status;
    }

    /** A {@code /v3/kv/txn} answer: whether its compares held, the kvs of each range it ran, its revision. */
    static TxnResult txnResult(JsonObject response) throws EtcdException {
        boolean ok = false;
        Optional<Json> succeeded = response.get("succeeded");
        if (succeeded.isPresent() && succeeded.get() instanceof JsonBoolean b) {
            ok = b.value();
        }
        List<List<Kv>> ranges = new ArrayList<>();
        Optional<Json> list = response.get("responses");
        if (list.isPresent() && list.get() instanceof JsonArray array) {
            for (Json r : array.elements()) {
                if (!(r instanceof JsonObject o)) {
                    throw protocol("/v3/kv/txn", "a response that is not an object");
                }
                Optional<Json> range = o.get("response_range");
                if (range.isPresent() && range.get() instanceof JsonObject kvs) {
                    ranges.add(kvs(kvs, "/v3/kv/txn"));
                } else {
                    ranges.add(new ArrayList<>());
                }
            }
        }
        return new TxnResult(ok, ranges, revision(response));
    }

    /** The kvs of a range answer ({@code what}: the request, for the error text). */
    static List<Kv> kvs(JsonObject rangeResponse, String what) throws EtcdException {
        List<Kv> out = new ArrayList<>();
        Optional<Json> list = rangeResponse.get("kvs");
        if (list.isEmpty()) {
            return out;
        }
        if (!(list.get() instanceof JsonArray array)) {
            throw protocol(what, "kvs is not a list");
        }
        for (Json element : array.elements()) {
            if (!(element instanceof JsonObject kv)) {
                throw protocol(what, "a kv that is not an object");
            }
            out.add(new Kv(new String(bytes(kv, "key", what), StandardCharsets.UTF_8), bytes(kv, "value", what),
                    number(kv, "create_revision", 0), number(kv, "mod_revision", 0), number(kv, "lease", 0)));
        }
        return out;
    }

    private static byte[] bytes(JsonObject o, String key, String what) throws EtcdException {
        Optional<Json> v = o.get(key);
        if (v.isEmpty()) {
            return new byte[0];
        }
        if (!(v.get() instanceof JsonString s)) {
            throw protocol(what, key + " is not a string");
        }
        try {
            return Base64.getDecoder().decode(s.value());
        } catch (IllegalArgumentException e) {
            throw protocol(what, key + " is not base64");
        }
    }

    /** An int64 field (the gateway writes them as strings); {@code absent} when missing. */
    static long number(JsonObject o, String key, long absent) {
        Optional<Json> v = o.get(key);
        if (v.isEmpty()) {
            return absent;
        }
        try {
            if (v.get() instanceof JsonString s) {
                return Long.parseLong(s.value());
            }
            if (v.get() instanceof JsonNumber n) {
                return n.toLong().orElse(absent);
            }
        } catch (NumberFormatException e) {
            return absent;
        }
        return absent;
    }

    /** An int64 field the answer must hold. */
    static long number(JsonObject o, String key, String what) throws EtcdException {
        long n = number(o, key, Long.MIN_VALUE);
        if (n == Long.MIN_VALUE) {
            throw protocol(what, "no " + key + " in the answer");
        }
        return n;
    }

    private static long revision(JsonObject response) {
        Optional<Json> header = response.get("header");
        return header.isPresent() && header.get() instanceof JsonObject h ? number(h, "revision", 0) : 0;
    }

    private static EtcdException protocol(String what, String problem) {
        return new EtcdException(Kind.PROTOCOL, "etcd " + what + ": " + problem);
    }
}
