package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdConfig.Endpoint;
import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocketFactory;

/**
 * etcd v3 through its gRPC API ({@code KV/Range}, {@code KV/Txn}, {@code Lease/LeaseGrant}, {@code
 * Auth/Authenticate}), over {@link GrpcChannel}s: no dependency, nothing but {@code java.base} on the exec path.
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
    private final GrpcChannel[] channels;
    private final ReentrantLock lock = new ReentrantLock();
    private int current;
    private String token;
    private boolean authenticated;
    private SSLSocketFactory tls;

    EtcdClient(EtcdConfig config, long deadline) {
        this.config = config;
        this.deadline = deadline;
        this.channels = new GrpcChannel[config.endpoints().size()];
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

    static final String RANGE = "/etcdserverpb.KV/Range";
    static final String TXN = "/etcdserverpb.KV/Txn";
    static final String LEASE_GRANT = "/etcdserverpb.Lease/LeaseGrant";
    static final String AUTHENTICATE = "/etcdserverpb.Auth/Authenticate";

    /** {@code Range}: keys in {@code [key, end)} ({@code end} null: just {@code key}). */
    List<Kv> range(String key, String end, boolean keysOnly, long limit) throws EtcdException {
        return EtcdAnswers.kvs(call(RANGE, rangeRequest(key, end, keysOnly, limit).toBytes(), 0), RANGE);
    }

    /** {@code Range} with {@code count_only}: how many keys {@code [key, end)} holds, none of them sent. */
    long count(String key, String end) throws EtcdException {
        Proto.Writer request = rangeRequest(key, end, false, 0).bool(9, true);
        return EtcdAnswers.count(call(RANGE, request.toBytes(), 0));
    }

    /** Runs a transaction. */
    TxnResult txn(Txn txn) throws EtcdException {
        return EtcdAnswers.txnResult(call(TXN, txn.toProto(), 0));
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
        return EtcdAnswers.txnResult(call(TXN, txn.toProto(), quick));
    }

    /** A lease of {@code ttlSeconds}; its ID. */
    long grantLease(long ttlSeconds) throws EtcdException {
        return EtcdAnswers.leaseId(call(LEASE_GRANT, new Proto.Writer().varint(1, ttlSeconds).toBytes(), 0));
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
     * Calls one endpoint after another until one answers: each attempt gets {@code dialTimeoutSeconds} (or what is
     * left of the call, if less) to connect and answer, so a member that accepts connections but does not answer (a
     * stopped process, a stalled disk, a black hole) costs one attempt, not the call's whole budget. Endpoints that
     * failed lately come last in each round. {@code quickNanos} > 0: the first attempt gets at most that long, and
     * {@link Kind#SLOW} ends the call if it does not answer in it.
     */
    private byte[] call(String method, byte[] request, long quickNanos) throws EtcdException {
        lock.lock();
        try {
            authenticate();
            Failover call = new Failover(method, request, quickNanos, order());
            while (true) {
                long now = System.nanoTime();
                giveUpIfDone(call, now);
                if (call.tried == call.order.length) {
                    nextRound(call);
                    continue;
                }
                int at = call.order[call.tried++];
                GrpcChannel.Answer answer = attempt(call, at, now);
                if (answer == null) {
                    continue; // the endpoint failed to connect or answer: the next one
                }
                if (answer.status == 0) {
                    answered(at);
                    return answer.body;
                }
                retryOrThrow(call, config.endpoints().get(at), answer.status, answer.message);
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
        final String method;
        final byte[] request;
        final long quickNanos;
        int[] order;
        int tried;
        int rounds;
        String lastFailure = "no endpoint tried";
        boolean reauthenticated;

        Failover(String method, byte[] request, long quickNanos, int[] order) {
            this.method = method;
            this.request = request;
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
     * Sends the call's request to endpoint {@code at}: its answer, or null if the endpoint did not connect or answer
     * (then it counts as failing, and {@code call.lastFailure} says why).
     */
    private GrpcChannel.Answer attempt(Failover call, int at, long now) throws EtcdException {
        Endpoint endpoint = config.endpoints().get(at);
        long attemptDeadline = attemptDeadline(call.rounds, now);
        boolean quick = call.quickNanos > 0 && call.rounds == 0 && call.tried == 1
                && attemptDeadline - now > call.quickNanos;
        if (quick) {
            attemptDeadline = now + call.quickNanos;
        }
        try {
            return channel(at).call(call.method, call.request, token, attemptDeadline);
        } catch (SSLException e) {
            channel(at).close();
            throw new EtcdException(Kind.CONFIG, "TLS with " + endpoint + " failed: " + e.getMessage(), e);
        } catch (SocketTimeoutException e) {
            channel(at).close();
            if (quick) {
                throw new EtcdException(Kind.SLOW, endpoint + " did not answer " + call.method + " within "
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
    private void retryOrThrow(Failover call, Endpoint endpoint, long code, String message) throws EtcdException {
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
        throw refused(call.method, endpoint, code, message);
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

    /** gRPC Unavailable (14) or DeadlineExceeded (4), the server errors etcd retries itself, a call it cancelled. */
    private static boolean isUnavailable(long code, String message) {
        return code == 14 || code == 4 || message.contains("no leader") || message.contains("leader changed")
                || message.contains("request timed out") || message.contains("timed out")
                || message.contains("too many requests") || message.contains("not capable")
                || message.contains("connection refused") || message.contains("transport is closing")
                || message.contains("context deadline exceeded") || message.contains("context canceled");
    }

    private GrpcChannel channel(int at) throws EtcdException {
        if (channels[at] == null) {
            Endpoint e = config.endpoints().get(at);
            GrpcChannel idle = e.tls() ? null : IdleChannels.take(e);
            channels[at] = idle != null ? idle : new GrpcChannel(e.host(), e.port(), e.tls() ? tls() : null,
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

    /** etcd user auth: {@code Auth/Authenticate} with the credentials file's {@code user:password}. */
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
        Proto.Writer request = new Proto.Writer().string(1, line.substring(0, colon))
                .string(2, line.substring(colon + 1));
        String t = EtcdAnswers.token(call(AUTHENTICATE, request.toBytes(), 0));
        if (t.isEmpty()) {
            throw new EtcdException(Kind.AUTH, "etcd did not return an auth token for user "
                    + line.substring(0, colon) + " (is auth enabled?)");
        }
        token = t;
    }

    // ---------------------------------------------------------------------------------------------- encoding

    static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** The end of the range of every key starting with {@code prefix} (its last character plus one). */
    static String prefixEnd(String prefix) {
        char last = prefix.charAt(prefix.length() - 1);
        return prefix.substring(0, prefix.length() - 1) + (char) (last + 1);
    }

    /** A {@code RangeRequest}. */
    static Proto.Writer rangeRequest(String key, String end, boolean keysOnly, long limit) {
        Proto.Writer w = new Proto.Writer().bytes(1, utf8(key));
        if (end != null) {
            w.bytes(2, utf8(end));
        }
        return w.varintIfSet(3, limit).bool(8, keysOnly);
    }

    @Override
    public void close() {
        for (int i = 0; i < channels.length; i++) {
            GrpcChannel c = channels[i];
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
        // Compare's result and target values, and TxnRequest's and RequestOp's fields, as etcd's rpc.proto
        // numbers them.
        private static final int EQUAL = 0;
        private static final int LESS = 2;
        private static final int CREATE = 1;
        private static final int MOD = 2;
        private static final int VALUE = 3;
        private static final int COMPARE = 1;
        private static final int SUCCESS = 2;
        private static final int FAILURE = 3;
        private final Proto.Writer request = new Proto.Writer();

        /** The key does not exist. */
        Txn absent(String key) {
            return compare(compare(key, EQUAL, CREATE).varint(5, 0));
        }

        /** The key was last written at {@code revision} (0: it does not exist). */
        Txn modRevision(String key, long revision) {
            return compare(compare(key, EQUAL, MOD).varint(6, revision));
        }

        /**
         * No key in {@code [key, end)} was created or changed after {@code revision}: every key there has a
         * {@code mod_revision} of at most {@code revision} (etcd compares each key of the range; an empty range
         * holds). With a range read as empty at {@code revision}, it says the range is still empty.
         */
        Txn unchangedSince(String key, String end, long revision) {
            return compare(compare(key, LESS, MOD).varint(6, revision + 1).bytes(64, utf8(end)));
        }

        /** The key holds {@code value}. */
        Txn value(String key, byte[] value) {
            return compare(compare(key, EQUAL, VALUE).bytes(7, value));
        }

        private static Proto.Writer compare(String key, int result, int target) {
            return new Proto.Writer().varintIfSet(1, result).varintIfSet(2, target).bytes(3, utf8(key));
        }

        private Txn compare(Proto.Writer compare) {
            request.message(COMPARE, compare);
            return this;
        }

        Txn put(String key, byte[] value, long lease) {
            Proto.Writer put = new Proto.Writer().bytes(1, utf8(key)).bytes(2, value).varintIfSet(3, lease);
            request.message(SUCCESS, new Proto.Writer().message(2, put));
            return this;
        }

        Txn delete(String key) {
            request.message(SUCCESS, new Proto.Writer().message(3, new Proto.Writer().bytes(1, utf8(key))));
            return this;
        }

        Txn range(String key, String end, boolean keysOnly, long limit) {
            request.message(SUCCESS, new Proto.Writer().message(1, rangeRequest(key, end, keysOnly, limit)));
            return this;
        }

        /** A range run when a compare fails. */
        Txn rangeOnFailure(String key, String end, boolean keysOnly, long limit) {
            request.message(FAILURE, new Proto.Writer().message(1, rangeRequest(key, end, keysOnly, limit)));
            return this;
        }

        boolean isEmpty() {
            return request.isEmpty();
        }

        /**
         * The {@code TxnRequest}. Its repeated fields may come in any order on the wire (etcd's decoder appends each
         * element to its list), so compares and operations are written as they are added.
         */
        byte[] toProto() {
            return request.toBytes();
        }
    }
}
