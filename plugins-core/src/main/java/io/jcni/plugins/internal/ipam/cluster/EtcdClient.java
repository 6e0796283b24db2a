package io.jcni.plugins.internal.ipam.cluster;

import static io.jcni.plugins.internal.ipam.cluster.EtcdAnswers.errorText;
import static io.jcni.plugins.internal.ipam.cluster.EtcdAnswers.kvs;
import static io.jcni.plugins.internal.ipam.cluster.EtcdAnswers.number;
import static io.jcni.plugins.internal.ipam.cluster.EtcdAnswers.parse;
import static io.jcni.plugins.internal.ipam.cluster.EtcdAnswers.txnResult;

import io.jcni.plugins.internal.ipam.cluster.EtcdConfig.Endpoint;
import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocketFactory;

/**
 * etcd v3 through its JSON gateway ({@code POST /v3/kv/range|txn}, {@code /v3/lease/grant}, {@code
 * /v3/auth/authenticate}; keys and values base64), over {@link HttpChannel}s: no dependency, nothing but
 * {@code java.base} on the exec path.
 *
 * <p>Every call has the deadline given at construction (the plugin call's {@code requestTimeoutSeconds}). A call goes
 * to one endpoint, which gets {@code dialTimeoutSeconds} (or what is left, if less) to connect and answer, twice that
 * in the next round and so on (a cluster slow under load still answers; a lone endpoint gets all that is left); when it
 * cannot connect, does not answer in that time (a member stopped, its disk stalled, its traffic black-holed: it may
 * accept connections all the same), or etcd answers "unavailable" (no leader, no quorum, request timed out, leader
 * changed), the next endpoint is tried, round after round with a short pause, until the deadline, then {@link
 * Kind#UNAVAILABLE}. An endpoint that failed to connect or answer is tried last for {@value #FAILING_NANOS} ns by
 * every call of this JVM. Requests are safe to repeat: reads trivially, writes because every write of the store is a
 * compare-and-swap transaction (a repeated one fails its compare and the store re-reads; one that a stopped member
 * applies when it resumes, after another member answered, fails its compare then).
 *
 * <p>One instance per plugin call (or per thread); calls are serialized by a lock. Close it to close its sockets.
 */
final class EtcdClient implements AutoCloseable {
    private final EtcdConfig config;
    private final long deadline;
    private final HttpChannel[] channels;
    private final ReentrantLock lock = new ReentrantLock();
    private int current;
    private String token;
    private boolean authenticated;
    private SSLSocketFactory tls;

    EtcdClient(EtcdConfig config, long deadline) {
        this.config = config;
        this.deadline = deadline;
        this.channels = new HttpChannel[config.endpoints().size()];
        // Spread the nodes over the endpoints; failover walks on from here.
        this.current = (int) ((System.nanoTime() >>> 10) % channels.length);
    }

    /** A client whose calls must all be done {@code requestTimeoutSeconds} from now. */
    static EtcdClient open(EtcdConfig config) {
        return new EtcdClient(config, System.nanoTime() + config.requestTimeoutSeconds() * 1_000_000_000L);
    }

    long deadline() {
        return deadline;
    }

    EtcdConfig config() {
        return config;
    }

    /** The failure of a call whose deadline passed: {@code why} says what it was waiting for. */
    EtcdException timedOut(String why) {
        return new EtcdException(Kind.UNAVAILABLE, "etcd did not answer within " + config.requestTimeoutSeconds()
                + " s (requestTimeoutSeconds): " + why);
    }

    // ---------------------------------------------------------------------------------------------- the calls

    /** {@code Range}: keys in {@code [key, end)} ({@code end} null: just {@code key}). */
    List<Kv> range(String key, String end, boolean keysOnly, long limit) throws EtcdException {
        StringBuilder body = new StringBuilder(128);
        rangeBody(body, key, end, keysOnly, limit);
        return kvs(call("/v3/kv/range", body.toString(), 0), "/v3/kv/range");
    }

    /** {@code Range} with {@code count_only}: how many keys {@code [key, end)} holds, none of them sent. */
    long count(String key, String end) throws EtcdException {
        String body = "{\"key\":\"" + b64(key) + "\",\"range_end\":\"" + b64(end) + "\",\"count_only\":true}";
        return number(call("/v3/kv/range", body, 0), "count", 0);
    }

    /** Runs a transaction. */
    TxnResult txn(Txn txn) throws EtcdException {
        return txnResult(call("/v3/kv/txn", txn.toJson(), 0));
    }

    /** The first attempt of {@link #txnOrSlow}: at most this, or a quarter of {@code dialTimeoutSeconds} if less. */
    static final long QUICK_NANOS = 500_000_000L;

    /**
     * Runs a transaction whose first attempt gets at most {@link #QUICK_NANOS}: {@link Kind#SLOW} if that attempt
     * does not answer in time. For a write sent without a read before it: while a leader that stopped has not been
     * replaced yet (up to an election timeout, 1 s by default), a follower forwards the write to it and nothing
     * proposes it again, so it would wait for the whole attempt (and count a healthy member as failing), where a read
     * waits for the election and goes on.
     */
    TxnResult txnOrSlow(Txn txn) throws EtcdException {
        long quick = Math.min(QUICK_NANOS, config.dialTimeoutSeconds() * 250_000_000L);
        return txnResult(call("/v3/kv/txn", txn.toJson(), quick));
    }

    /** A lease of {@code ttlSeconds}; its ID. */
    long grantLease(long ttlSeconds) throws EtcdException {
        JsonObject response = call("/v3/lease/grant", "{\"TTL\":\"" + ttlSeconds + "\"}", 0);
        return number(response, "ID", "/v3/lease/grant");
    }

    // ---------------------------------------------------------------------------------------------- transport

    /**
     * Endpoints that recently failed to connect or to answer in time, with when ({@link System#nanoTime()}) they stop
     * being tried last. Shared by the calls of this JVM (the plugin service's: a stopped member costs one call its
     * attempt, not every call); an exec'd plugin starts with none.
     */
    private static final ConcurrentHashMap<Endpoint, Long> FAILING = new ConcurrentHashMap<>();
    /** How long an endpoint that failed is tried last. */
    static final long FAILING_NANOS = 30_000_000_000L;

    /**
     * Posts to one endpoint after another until one answers: each attempt gets {@code dialTimeoutSeconds} (or what is
     * left of the call, if less) to connect and answer, so a member that accepts connections but does not answer (a
     * stopped process, a stalled disk, a black hole) costs one attempt, not the call's whole budget. Endpoints that
     * failed lately come last in each round. {@code quickNanos} > 0: the first attempt gets at most that long, and
     * {@link Kind#SLOW} ends the call if it does not answer in it.
     */
    private JsonObject call(String path, String body, long quickNanos) throws EtcdException {
        lock.lock();
        try {
            authenticate();
            Failover call = new Failover(path, body.getBytes(StandardCharsets.UTF_8), quickNanos, order());
            while (true) {
                long now = System.nanoTime();
                giveUpIfDone(call, now);
                if (call.tried == call.order.length) {
                    nextRound(call);
                    continue;
                }
                int at = call.order[call.tried++];
                HttpChannel.Response response = attempt(call, at, now);
                if (response == null) {
                    continue; // the endpoint failed to connect or answer: the next one
                }
                Endpoint endpoint = config.endpoints().get(at);
                JsonObject json = parse(response.body, path, endpoint);
                if (response.status == 200 && !json.has("error")) {
                    answered(at);
                    return json;
                }
                retryOrThrow(call, endpoint, json, response);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Where one {@link EtcdClient#call} stands: the endpoints of this round in the order to try them, how many of
     * them it tried, how many rounds it finished, what went wrong last, and whether it already asked for a new token.
     */
    private static final class Failover {
        final String path;
        final byte[] body;
        final long quickNanos;
        int[] order;
        int tried;
        int rounds;
        String lastFailure = "no endpoint tried";
        boolean reauthenticated;

        Failover(String path, byte[] body, long quickNanos, int[] order) {
            this.path = path;
            this.body = body;
            this.quickNanos = quickNanos;
            this.order = order;
        }
    }

    /** Ends the call if its thread was interrupted or its deadline passed. */
    private void giveUpIfDone(Failover call, long now) throws EtcdException {
        if (Thread.currentThread().isInterrupted()) {
            throw new EtcdException(Kind.UNAVAILABLE, "the call was cancelled while it waited for etcd: "
                    + call.lastFailure);
        }
        if (now - deadline > 0) {
            throw timedOut(call.lastFailure);
        }
    }

    /** Every endpoint was tried in this round: a short pause, then all of them again, in the order of now. */
    private void nextRound(Failover call) {
        pause(++call.rounds);
        call.order = order();
        call.tried = 0;
    }

    /**
     * Posts the call's request to endpoint {@code at}: its answer, or null if the endpoint did not connect or answer
     * (then it counts as failing, and {@code call.lastFailure} says why).
     */
    private HttpChannel.Response attempt(Failover call, int at, long now) throws EtcdException {
        Endpoint endpoint = config.endpoints().get(at);
        long attemptDeadline = attemptDeadline(call.rounds, now);
        boolean quick = call.quickNanos > 0 && call.rounds == 0 && call.tried == 1
                && attemptDeadline - now > call.quickNanos;
        if (quick) {
            attemptDeadline = now + call.quickNanos;
        }
        try {
            return channel(at).post(call.path, call.body, token, attemptDeadline);
        } catch (SSLException e) {
            channel(at).close();
            throw new EtcdException(Kind.CONFIG, "TLS with " + endpoint + " failed: " + e.getMessage(), e);
        } catch (SocketTimeoutException e) {
            channel(at).close();
            if (quick) {
                throw new EtcdException(Kind.SLOW, endpoint + " did not answer " + call.path + " within "
                        + call.quickNanos / 1_000_000 + " ms", e);
            }
            attemptFailed(call, endpoint, endpoint + " did not answer within " + (attemptDeadline == deadline
                    ? "the call's deadline" : config.dialTimeoutSeconds() + " s (dialTimeoutSeconds)"));
        } catch (ConnectException e) {
            attemptFailed(call, endpoint, endpoint + ": "
                    + (e.getMessage() == null ? "cannot connect" : e.getMessage()));
        } catch (IOException e) {
            channel(at).close();
            attemptFailed(call, endpoint, endpoint + ": " + IoText.reason(e));
        }
        return null;
    }

    /**
     * When an attempt of round {@code rounds} begun at {@code now} must have its answer. One endpoint: nowhere to move
     * on to, it gets what is left. Several: dialTimeoutSeconds in the first round, doubled in each further one (a
     * cluster slow under load is not cut off for ever). Never past the call's deadline.
     */
    private long attemptDeadline(int rounds, long now) {
        long attemptNanos = config.dialTimeoutSeconds() * 1_000_000_000L;
        long budget = channels.length == 1 ? Long.MAX_VALUE : attemptNanos << Math.min(rounds, 20);
        return deadline - now < budget ? deadline : now + budget;
    }

    /** An endpoint did not connect or answer: tried last for a while, and the reason if the call gives up. */
    private static void attemptFailed(Failover call, Endpoint endpoint, String why) {
        failing(endpoint);
        call.lastFailure = why;
    }

    /** Endpoint {@code at} answered: the next call starts there, and it no longer counts as failing. */
    private void answered(int at) {
        current = at;
        FAILING.remove(config.endpoints().get(at));
    }

    /**
     * An error answer: returns to try the next endpoint if etcd was unavailable, the same one again (once a call)
     * with a new token if the token was no longer valid; throws the call's error otherwise.
     */
    private void retryOrThrow(Failover call, Endpoint endpoint, JsonObject json, HttpChannel.Response response)
            throws EtcdException {
        String message = errorText(json, response);
        long code = number(json, "code", -1);
        if (isUnavailable(code, message)) {
            call.lastFailure = endpoint + ": " + message;
            return;
        }
        if (!call.reauthenticated && token != null && isStaleToken(code, message)) {
            call.reauthenticated = true;
            authenticated = false;
            token = null;
            authenticate();
            call.tried--; // the same endpoint again, with the new token
            return;
        }
        throw refused(call.path, endpoint, code, message);
    }

    /** gRPC Unauthenticated (16), or etcd's texts for a token that expired or predates a change of the auth store. */
    private static boolean isStaleToken(long code, String message) {
        return code == 16 || message.contains("invalid auth token") || message.contains("auth token is expired")
                || message.contains("revision of auth store");
    }

    /** The error of an answer that is neither "unavailable" nor a stale token: auth, a lost lease, or any other. */
    private EtcdException refused(String path, Endpoint endpoint, long code, String message) {
        if (code == 7 || code == 16 || message.contains("permission denied")
                || message.contains("user name is empty") || message.contains("authentication failed")) {
            return new EtcdException(Kind.AUTH, "etcd " + endpoint + " refused " + path + ": " + message
                    + (config.credentialsFile() == null ? " (no credentialsFile is configured)" : ""));
        }
        // etcd's ErrGRPCLeaseNotFound ("requested lease not found", gRPC code 5, NotFound): a lease that expired.
        Kind kind = code == 5 || message.contains("requested lease not found") ? Kind.LEASE_NOT_FOUND
                : Kind.PROTOCOL;
        return new EtcdException(kind, "etcd " + endpoint + " " + path + ": " + message);
    }

    /**
     * The endpoints in the order to try them: from the current one on, those that did not fail lately first, the
     * others after them (each still tried once a round: with every member failing, the one that recovers must be found).
     */
    private int[] order() {
        int n = channels.length;
        int[] order = new int[n];
        int first = 0;
        int last = n;
        long now = System.nanoTime();
        for (int k = 0; k < n; k++) {
            int at = (current + k) % n;
            Long until = FAILING.get(config.endpoints().get(at));
            if (until != null && until - now > 0) {
                order[--last] = at;
            } else {
                order[first++] = at;
            }
        }
        // The failing ones were filled from the end: put them back in their rotation order.
        for (int i = last, j = n - 1; i < j; i++, j--) {
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    private static void failing(Endpoint endpoint) {
        FAILING.put(endpoint, System.nanoTime() + FAILING_NANOS);
    }

    /** After a round in which no endpoint answered, a short pause (never past the deadline). */
    private void pause(int rounds) {
        long pauseMillis = Math.min(200, 20L * rounds);
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left > 0) {
            try {
                Thread.sleep(Math.min(pauseMillis, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** gRPC Unavailable (14) or DeadlineExceeded (4), and the server errors etcd retries itself. */
    private static boolean isUnavailable(long code, String message) {
        return code == 14 || code == 4 || message.contains("no leader") || message.contains("leader changed")
                || message.contains("request timed out") || message.contains("timed out")
                || message.contains("too many requests") || message.contains("not capable")
                || message.contains("connection refused") || message.contains("transport is closing");
    }

    private HttpChannel channel(int at) throws EtcdException {
        if (channels[at] == null) {
            Endpoint e = config.endpoints().get(at);
            HttpChannel idle = e.tls() ? null : IdleChannels.take(e);
            channels[at] = idle != null ? idle : new HttpChannel(e.host(), e.port(), e.tls() ? tls() : null,
                    config.dialTimeoutSeconds() * 1_000_000_000L);
        }
        return channels[at];
    }

    private SSLSocketFactory tls() throws EtcdException {
        if (tls == null) {
            tls = Pem.socketFactory(config.trustedCaFile(), config.certFile(), config.keyFile());
        }
        return tls;
    }

    /** etcd user auth: {@code /v3/auth/authenticate} with the credentials file's {@code user:password}. */
    private void authenticate() throws EtcdException {
        if (authenticated || config.credentialsFile() == null) {
            return;
        }
        authenticated = true;
        String text;
        try {
            // Only a regular file (a FIFO would block the call, /dev/zero never end), at most 64 KiB.
            text = new String(BoundedFiles.read(config.credentialsFile(), 64 * 1024, BoundedFiles.Links.FOLLOW),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            authenticated = false;
            throw new EtcdException(Kind.CONFIG, "cannot read the etcd credentials file "
                    + config.credentialsFile() + ": " + IoText.reason(e), e);
        }
        int newline = text.indexOf('\n');
        String line = (newline >= 0 ? text.substring(0, newline) : text).strip();
        int colon = line.indexOf(':');
        if (colon <= 0) {
            authenticated = false;
            throw new EtcdException(Kind.CONFIG, "the etcd credentials file " + config.credentialsFile()
                    + " must hold user:password on its first line");
        }
        String body = "{\"name\":" + new JsonString(line.substring(0, colon)) + ",\"password\":"
                + new JsonString(line.substring(colon + 1)) + "}";
        JsonObject response = call("/v3/auth/authenticate", body, 0);
        Optional<Json> t = response.get("token");
        if (t.isEmpty() || !(t.get() instanceof JsonString s) || s.value().isEmpty()) {
            throw new EtcdException(Kind.AUTH, "etcd did not return an auth token for user "
                    + line.substring(0, colon) + " (is auth enabled?)");
        }
        token = s.value();
    }

    // ---------------------------------------------------------------------------------------------- encoding

    static String b64(String key) {
        return Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    }

    static String b64(byte[] value) {
        return Base64.getEncoder().encodeToString(value);
    }

    /** The end of the range of every key starting with {@code prefix} (its last character plus one). */
    static String prefixEnd(String prefix) {
        char last = prefix.charAt(prefix.length() - 1);
        return prefix.substring(0, prefix.length() - 1) + (char) (last + 1);
    }

    static void rangeBody(StringBuilder body, String key, String end, boolean keysOnly, long limit) {
        body.append("{\"key\":\"").append(b64(key)).append('"');
        if (end != null) {
            body.append(",\"range_end\":\"").append(b64(end)).append('"');
        }
        if (keysOnly) {
            body.append(",\"keys_only\":true");
        }
        if (limit > 0) {
            body.append(",\"limit\":\"").append(limit).append('"');
        }
        body.append('}');
    }

    @Override
    public void close() {
        for (int i = 0; i < channels.length; i++) {
            HttpChannel c = channels[i];
            if (c != null) {
                EtcdConfig.Endpoint e = config.endpoints().get(i);
                if (e.tls() || !c.isOpen() || !IdleChannels.give(e, c)) {
                    c.close();
                }
                channels[i] = null;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- values

    /** One key-value pair as etcd returns it. */
    static final class Kv {
        final String key;
        final byte[] value;
        final long createRevision;
        final long modRevision;
        final long lease;

        Kv(String key, byte[] value, long createRevision, long modRevision, long lease) {
            this.key = key;
            this.value = value;
            this.createRevision = createRevision;
            this.modRevision = modRevision;
            this.lease = lease;
        }
    }

    /** A transaction's outcome: whether its compares held, and the kvs of each range operation that ran. */
    static final class TxnResult {
        final boolean succeeded;
        private final List<List<Kv>> ranges;
        final long revision;

        TxnResult(boolean succeeded, List<List<Kv>> ranges, long revision) {
            this.succeeded = succeeded;
            this.ranges = ranges;
            this.revision = revision;
        }

        /** The kvs of the {@code i}-th operation that ran (empty for a put or delete, or past the end). */
        List<Kv> range(int i) {
            return i < ranges.size() ? ranges.get(i) : new ArrayList<>();
        }
    }

    /** A transaction: compares, then the operations run if they all hold ({@code success}) or if not. */
    static final class Txn {
        private final StringBuilder compare = new StringBuilder();
        private final StringBuilder success = new StringBuilder();
        private final StringBuilder failure = new StringBuilder();

        /** The key does not exist. */
        Txn absent(String key) {
            return cmp(key, "\"target\":\"CREATE\",\"create_revision\":\"0\"");
        }

        /** The key was last written at {@code revision} (0: it does not exist). */
        Txn modRevision(String key, long revision) {
            return cmp(key, "\"target\":\"MOD\",\"mod_revision\":\"" + revision + "\"");
        }

        /**
         * No key in {@code [key, end)} was created or changed after {@code revision}: every key there has a
         * {@code mod_revision} of at most {@code revision} (etcd compares each key of the range; an empty range
         * holds). With a range read as empty at {@code revision}, it says the range is still empty.
         */
        Txn unchangedSince(String key, String end, long revision) {
            sep(compare).append("{\"key\":\"").append(b64(key)).append("\",\"range_end\":\"").append(b64(end))
                    .append("\",\"result\":\"LESS\",\"target\":\"MOD\",\"mod_revision\":\"").append(revision + 1)
                    .append("\"}");
            return this;
        }

        /** The key holds {@code value}. */
        Txn value(String key, byte[] value) {
            return cmp(key, "\"target\":\"VALUE\",\"value\":\"" + b64(value) + "\"");
        }

        private Txn cmp(String key, String rest) {
            sep(compare).append("{\"key\":\"").append(b64(key)).append("\",\"result\":\"EQUAL\",").append(rest)
                    .append('}');
            return this;
        }

        Txn put(String key, byte[] value, long lease) {
            sep(success).append("{\"request_put\":{\"key\":\"").append(b64(key)).append("\",\"value\":\"")
                    .append(b64(value)).append('"');
            if (lease != 0) {
                success.append(",\"lease\":\"").append(lease).append('"');
            }
            success.append("}}");
            return this;
        }

        Txn delete(String key) {
            sep(success).append("{\"request_delete_range\":{\"key\":\"").append(b64(key)).append("\"}}");
            return this;
        }

        Txn range(String key, String end, boolean keysOnly, long limit) {
            sep(success).append("{\"request_range\":");
            rangeBody(success, key, end, keysOnly, limit);
            success.append('}');
            return this;
        }

        /** A range run when a compare fails. */
        Txn rangeOnFailure(String key, String end, boolean keysOnly, long limit) {
            sep(failure).append("{\"request_range\":");
            rangeBody(failure, key, end, keysOnly, limit);
            failure.append('}');
            return this;
        }

        boolean isEmpty() {
            return compare.isEmpty() && success.isEmpty() && failure.isEmpty();
        }

        private static StringBuilder sep(StringBuilder sb) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            return sb;
        }

        String toJson() {
            return "{\"compare\":[" + compare + "],\"success\":[" + success + "],\"failure\":[" + failure + "]}";
        }
    }
}
