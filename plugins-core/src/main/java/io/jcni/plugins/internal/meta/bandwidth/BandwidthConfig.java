package io.jcni.plugins.internal.meta.bandwidth;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.QdiscInfo;
import io.jcni.netlink.TcClock;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import java.util.Optional;

/**
 * bandwidth's configuration, Go's {@code PluginConf}: {@code ingressRate}/{@code ingressBurst} shape what reaches the
 * container, {@code egressRate}/{@code egressBurst} what it sends, rates in bits per second and bursts in bits, 0 for
 * no limit. The values come from the configuration's top level when any of the four keys is there, else from the
 * {@code bandwidth} capability ({@code runtimeConfig.bandwidth}), as Go's {@code getBandwidth} chooses: a key at the
 * top level wins over the runtime's values.
 *
 * <p>Checks, Go's first and in Go's words (code 7): a rate without a burst, a burst without a rate, a burst of
 * 2^32 bytes or more. Then jcni's, also code 7 and all before any side effect, where Go would send the kernel a
 * queue it cannot honour: a rate or burst under one byte (under 8 bits), a rate whose 25 ms queue no longer fits
 * the kernel's 32-bit limit (about 1.37 Tbit/s), and a burst so long to send that Go's 32-bit conversion of its time
 * wraps to an empty bucket, which the kernel refuses ({@link #goBucketIsEmpty}). Negative numbers and numbers beyond 2^63-1 are out of range (7);
 * numbers that are not integers are a decoding failure (6).
 *
 * <p>{@code shapedSubnets} and {@code unshapedSubnets} existed in Go's bandwidth 1.5.0 and 1.5.1 only (an HTB layout
 * that shaped or spared traffic by destination); 1.6.0 reverted them, and Go's releases since then shape all traffic
 * with tbf and ignore the keys. jcni lays traffic out as those releases do, so a configuration that asks for a subnet
 * list (a non-empty one, at the top level or in the capability) is refused with code 2 rather than have traffic shaped
 * that the list meant to spare.
 */
record BandwidthConfig(Shaping ingress, Shaping egress) {

    /** The latency Go derives the queue limit from (its {@code latencyInMillis}). */
    static final double LATENCY_MILLIS = QdiscInfo.Tbf.GO_BANDWIDTH_LATENCY_MILLIS;

    /** One direction's limit, in the configuration's units; {@code tbf} is the kernel's token bucket, null if unset. */
    record Shaping(long rateBits, long burstBits, QdiscInfo.Tbf tbf) {
        static final Shaping NONE = new Shaping(0, 0, null);

        boolean isSet() {
            return rateBits > 0 && burstBits > 0;
        }
    }

    /** Whether anything is shaped. */
    boolean shapes() {
        return ingress.isSet() || egress.isSet();
    }

    /** The configuration of an ADD or CHECK: everything checked, the token buckets computed. */
    static BandwidthConfig load(CniRequest request) throws CniException {
        ConfigNode root = request.config().node();
        refuseSubnetLists(root);
        Optional<ConfigNode> runtime = root.object("runtimeConfig");
        Optional<ConfigNode> capability = runtime.isPresent() ? runtime.get().object("bandwidth")
                : Optional.<ConfigNode>empty();
        if (capability.isPresent()) {
            refuseSubnetLists(capability.get());
            for (String key : new String[] {"ingressRate", "ingressBurst", "egressRate", "egressBurst"}) {
                bits(capability.get(), key); // decoded as Go decodes it, whichever source wins: a bad value is code 6
            }
        }
        ConfigNode source;
        if (hasTopLevelKey(root)) {
            source = root;
        } else if (capability.isPresent()) {
            source = capability.get();
        } else {
            return new BandwidthConfig(Shaping.NONE, Shaping.NONE);
        }
        long ingressRate = bits(source, "ingressRate");
        long ingressBurst = bits(source, "ingressBurst");
        long egressRate = bits(source, "egressRate");
        long egressBurst = bits(source, "egressBurst");
        checkRateAndBurst(source, "ingress", ingressRate, ingressBurst);
        checkRateAndBurst(source, "egress", egressRate, egressBurst);
        TcClock clock = null;
        if (ingressRate != 0 || egressRate != 0) {
            try {
                clock = TcClock.system();
            } catch (KernelException e) {
                throw NetErrors.failure("failed to read the kernel's traffic control clock", e);
            }
        }
        return new BandwidthConfig(shaping(source, "ingress", ingressRate, ingressBurst, clock),
                shaping(source, "egress", egressRate, egressBurst, clock));
    }

    private static boolean hasTopLevelKey(ConfigNode root) throws CniException {
        return root.field("ingressRate").isPresent() || root.field("ingressBurst").isPresent()
                || root.field("egressRate").isPresent() || root.field("egressBurst").isPresent();
    }

    /** A uint64 of Go's, as far as a long holds it (0 when absent). */
    private static long bits(ConfigNode source, String key) throws CniException {
        return source.integer(key, 0, Long.MAX_VALUE).orElse(0L);
    }

    /** Go's {@code validateRateAndBurst}, its messages; the keys go in the details. */
    private static void checkRateAndBurst(ConfigNode source, String direction, long rate, long burst)
            throws CniException {
        String keys = where(source) + direction + "Rate " + rate + ", " + direction + "Burst " + burst;
        if (burst == 0 && rate != 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "if rate is set, burst must also be set", keys);
        }
        if (rate == 0 && burst != 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "if burst is set, rate must also be set", keys);
        }
        if (burst / 8 >= 0xFFFFFFFFL) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "burst cannot be more than 4GB", keys);
        }
    }

    /** The token bucket Go's {@code createTBF} would ask for, or a refusal where the kernel could not honour it. */
    private static Shaping shaping(ConfigNode source, String direction, long rate, long burst, TcClock clock)
            throws CniException {
        if (rate == 0) {
            return Shaping.NONE;
        }
        String keys = where(source) + direction + "Rate " + rate + ", " + direction + "Burst " + burst;
        if (rate < 8 || burst < 8) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, direction + " rate and burst must be at least 8 "
                    + "bits (one byte)", keys + ": tbf works in bytes, and Go's plugin would send the kernel 0");
        }
        if (goBucketIsEmpty(rate / 8, burst / 8, clock)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, direction + "Burst " + burst + " cannot be sent "
                    + "at " + direction + "Rate " + rate + " within tbf's 32-bit buffer", keys + ": the bucket takes "
                    + String.format(java.util.Locale.ROOT, "%.0f", (double) (burst / 8) * 1e6 / (rate / 8) / 1e6)
                    + " s to send; Go's plugin wraps that time around 2^32 to a bucket of less than one byte, which"
                    + " the kernel refuses (\"create qdisc: invalid argument\")");
        }
        try {
            return new Shaping(rate, burst, QdiscInfo.Tbf.goBandwidth(rate / 8, burst / 8, LATENCY_MILLIS, clock));
        } catch (IllegalArgumentException e) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, direction + "Rate " + rate + " is too high for "
                    + "a token bucket", keys + ": " + e.getMessage() + " (the kernel's tbf limit is 32 bits: "
                    + LATENCY_MILLIS + " ms of traffic at this rate plus the burst)");
        }
    }

    /**
     * Whether Go's {@code createTBF} fails for this bucket. Go converts the bucket's time to {@code uint32} twice
     * (microseconds, then kernel ticks), and on amd64 such a conversion keeps the low 32 bits of the number: a bucket
     * that takes longer than 2^32 µs (about 72 minutes) to send, or 2^32 ticks, becomes another. Where that one holds
     * less than a byte at the rate, the kernel refuses the tbf (EINVAL; measured with Go's plugin 1.1.1: 2^32 and 2^33
     * bits at 1 Mbit/s) and jcni refuses the same configuration, before any side effect. Where the kernel takes the
     * wrapped bucket (containerd's burst of 2^32-1 bits at any rate it sends; 2^32 bits at 8 Mbit/s), Go's plugin
     * succeeds, and so does jcni's, with the largest bucket tbf's buffer holds instead of the wrapped one.
     */
    static boolean goBucketIsEmpty(long rateBytes, long burstBytes, TcClock clock) {
        double micros = (double) burstBytes * TcClock.TIME_UNITS_PER_SEC / (double) rateBytes;
        if (micros < 4294967296.0 && micros * clock.tickInUsec() < 4294967296.0) {
            return false; // no wrap: the bucket is what was asked for
        }
        long ticks = goUint32(goUint32(micros) * clock.tickInUsec());
        // The kernel's tbf_change: the bucket's size in bytes is the buffer's time (ticks of 1000/tickInUsec ns) at
        // the rate, rounded down; 0 is refused.
        double bytes = ticks * (1000.0 / clock.tickInUsec()) * rateBytes / 1e9;
        return bytes < 1;
    }

    /** Go's {@code uint32(float64)} on amd64: truncated to a 64-bit integer, of which the low 32 bits are kept. */
    private static long goUint32(double value) {
        return ((long) value) & 0xFFFFFFFFL;
    }

    private static String where(ConfigNode source) {
        return source.path().isEmpty() ? "" : source.path() + ": ";
    }

    /** {@code shapedSubnets}/{@code unshapedSubnets}: an empty list (or none) is fine, anything else is code 2. */
    private static void refuseSubnetLists(ConfigNode node) throws CniException {
        for (String key : new String[] {"shapedSubnets", "unshapedSubnets"}) {
            Optional<ConfigNode> list = node.field(key);
            if (list.isEmpty()) {
                continue;
            }
            Json value = list.get().json();
            if (value instanceof JsonArray array && array.size() == 0) {
                continue;
            }
            String path = list.get().path();
            throw new CniException(CniError.UNSUPPORTED_FIELD, path + ": subnet lists are not supported",
                    "Go's bandwidth plugin had shapedSubnets and unshapedSubnets in 1.5.0 and 1.5.1 only; 1.6.0 "
                            + "reverted them and its later releases shape all of an attachment's traffic. jcni does the"
                            + " same and refuses the list rather than shape traffic it meant to spare");
        }
    }
}
