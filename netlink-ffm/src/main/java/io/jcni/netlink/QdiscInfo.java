package io.jcni.netlink;

import io.jcni.netlink.internal.wire.PktSchedH;

/**
 * The type of a queueing discipline and what is specific to it ({@code TCA_KIND} and {@code TCA_OPTIONS}), as
 * {@code tc -d qdisc show} prints it: {@code if (qdisc.info() instanceof QdiscInfo.Tbf tbf) ... tbf.rate()}.
 */
public sealed interface QdiscInfo {

    /** {@code TCA_KIND}: {@code "tbf"}, {@code "ingress"}, ... */
    String kind();

    /**
     * A token bucket filter ({@code sch_tbf}): {@code tc qdisc add dev D root handle 1: tbf rate R burst B latency L}.
     * Build one with {@link #tc} (the numbers {@code tc} computes) or {@link #goBandwidth} (those of the Go bandwidth
     * plugin); the canonical constructor takes the raw kernel parameters.
     *
     * <p>Read back from the kernel, {@code burst} is 0 (the kernel does not report it; {@code tc} derives its
     * {@code burst} column from {@code buffer} and {@code rate}) and {@code linkLayer} is what the kernel kept.
     *
     * @param rate bytes per second ({@code tc_ratespec.rate}; {@code TCA_TBF_RATE64} from 2^32 on)
     * @param limit bytes that may wait in the queue, an unsigned 32-bit number
     * @param buffer the bucket's size as the time to send it at {@code rate}, in {@link TcClock} ticks (unsigned 32-bit)
     * @param burst the bucket's size in bytes, sent as {@code TCA_TBF_BURST} when non-zero (the kernel then sizes the
     *     bucket from it, as for {@code tc}); 0 leaves it to {@code buffer} alone (as the Go netlink library does)
     * @param mpu the minimum packet unit: smaller packets are accounted as this size
     * @param linkLayer {@link #LINKLAYER_ETHERNET}: the request carries the rate table {@code tc} computes
     *     ({@code TCA_TBF_RTAB}, {@code tc_calc_rtable}) and says {@code linklayer ethernet}, as {@code tc} does;
     *     {@link #LINKLAYER_UNAWARE}: no rate table (the kernel computes transmission times itself; {@code tc} shows
     *     {@code linklayer unspec}), as the Go netlink library does. Both shape the same on Ethernet.
     */
    record Tbf(long rate, int limit, int buffer, int burst, int mpu, int linkLayer) implements QdiscInfo {
        /** {@code TC_LINKLAYER_UNAWARE}. */
        public static final int LINKLAYER_UNAWARE = PktSchedH.TC_LINKLAYER_UNAWARE;
        /** {@code TC_LINKLAYER_ETHERNET}. */
        public static final int LINKLAYER_ETHERNET = PktSchedH.TC_LINKLAYER_ETHERNET;
        /** The latency the Go bandwidth plugin derives its queue limit from: 25 ms. */
        public static final double GO_BANDWIDTH_LATENCY_MILLIS = 25;

        public Tbf {
            if (rate <= 0) {
                throw new IllegalArgumentException("tbf rate must be positive: " + rate);
            }
            if (mpu < 0 || mpu > 0xffff) {
                throw new IllegalArgumentException("tbf mpu must be 0-65535: " + mpu);
            }
            if (linkLayer != LINKLAYER_UNAWARE && linkLayer != LINKLAYER_ETHERNET
                    && linkLayer != PktSchedH.TC_LINKLAYER_ATM) {
                throw new IllegalArgumentException("tbf link layer must be unaware (0), ethernet (1) or atm (2): "
                        + linkLayer);
            }
        }

        /**
         * The parameters {@code tc qdisc add ... tbf rate RATE burst BURST latency LATENCY} sends: {@code limit} is
         * {@code rate * latency + burst} bytes, {@code buffer} the ticks to send {@code burst} bytes
         * ({@code tc_calc_xmittime}), with the burst and an Ethernet rate table.
         *
         * @param rate bytes per second, positive
         * @param burst bytes, positive and below 2^32
         * @param latencyMicros the longest a packet may wait, in microseconds
         * @throws IllegalArgumentException if a value is out of range or the limit does not fit 32 bits
         */
        public static Tbf tc(long rate, long burst, long latencyMicros, TcClock clock) {
            checkRateBurst(rate, burst);
            if (latencyMicros < 0 || latencyMicros > 0xFFFFFFFFL) {
                throw new IllegalArgumentException("tbf latency must be 0 to 2^32-1 microseconds: " + latencyMicros);
            }
            double limit = rate * (double) latencyMicros / TcClock.TIME_UNITS_PER_SEC + burst;
            long rate32 = Math.min(rate, 0xFFFFFFFFL);
            return new Tbf(rate, u32("limit", limit), (int) clock.xmitTime(rate32, burst), (int) burst, 0,
                    LINKLAYER_ETHERNET);
        }

        /** {@link #tc(long, long, long, TcClock)} with the running kernel's clock. */
        public static Tbf tc(long rate, long burst, long latencyMicros) {
            return tc(rate, burst, latencyMicros, TcClock.system());
        }

        /**
         * The parameters the Go bandwidth plugin (containernetworking/plugins, {@code createTBF}) sends, computed with
         * its float arithmetic: {@code buffer = time2tick(burst * 10^6 / rate)}, {@code limit = rate * latency + burst}
         * with the product truncated before the burst is added, no burst attribute and no rate table.
         *
         * @param rate bytes per second (the plugin's bits per second / 8), positive
         * @param burst bytes (the plugin's bits / 8), positive and below 2^32
         * @param latencyMillis the plugin uses {@link #GO_BANDWIDTH_LATENCY_MILLIS}
         * @throws IllegalArgumentException if a value is out of range or the limit does not fit 32 bits
         */
        public static Tbf goBandwidth(long rate, long burst, double latencyMillis, TcClock clock) {
            checkRateBurst(rate, burst);
            if (!(latencyMillis >= 0)) {
                throw new IllegalArgumentException("tbf latency must not be negative: " + latencyMillis);
            }
            double latencyMicros = (double) TcClock.TIME_UNITS_PER_SEC * (latencyMillis / 1000.0);
            long bufferTime = TcClock.u32((double) burst * (double) TcClock.TIME_UNITS_PER_SEC / (double) rate);
            long buffer = TcClock.u32(bufferTime * clock.tickInUsec());
            double queued = (double) rate * latencyMicros / (double) TcClock.TIME_UNITS_PER_SEC;
            if (queued >= 4294967296.0) {
                throw new IllegalArgumentException("tbf limit does not fit 32 bits: " + queued + " bytes");
            }
            return new Tbf(rate, u32("limit", (double) ((long) queued + burst)), (int) buffer, 0, 0,
                    LINKLAYER_UNAWARE);
        }

        /** {@link #goBandwidth(long, long, double, TcClock)} with the running kernel's clock. */
        public static Tbf goBandwidth(long rate, long burst, double latencyMillis) {
            return goBandwidth(rate, burst, latencyMillis, TcClock.system());
        }

        private static void checkRateBurst(long rate, long burst) {
            if (rate <= 0) {
                throw new IllegalArgumentException("tbf rate must be positive: " + rate + " bytes/s");
            }
            if (burst <= 0 || burst > 0xFFFFFFFFL) {
                throw new IllegalArgumentException("tbf burst must be 1 to 2^32-1 bytes: " + burst);
            }
        }

        private static int u32(String what, double value) {
            if (value >= 4294967296.0) {
                throw new IllegalArgumentException("tbf " + what + " does not fit 32 bits: " + (long) value + " bytes");
            }
            return (int) TcClock.u32(value);
        }

        @Override
        public String kind() {
            return "tbf";
        }

        /** As {@code tc} prints the options: {@code rate 1000000 limit 35000 buffer 156250 ...} (bytes, ticks). */
        @Override
        public String toString() {
            return "tbf rate " + rate + " limit " + Integer.toUnsignedString(limit) + " buffer "
                    + Integer.toUnsignedString(buffer) + (burst != 0 ? " burst " + Integer.toUnsignedString(burst) : "")
                    + (mpu != 0 ? " mpu " + mpu : "") + " linklayer " + linkLayer;
        }
    }

    /** The ingress qdisc: {@code tc qdisc add dev D ingress} (handle {@code ffff:}, parent {@link TcHandle#INGRESS}). */
    record Ingress() implements QdiscInfo {
        @Override
        public String kind() {
            return "ingress";
        }
    }

    /** The clsact qdisc: {@code tc qdisc add dev D clsact} (handle {@code ffff:}, parent {@link TcHandle#CLSACT}). */
    record Clsact() implements QdiscInfo {
        @Override
        public String kind() {
            return "clsact";
        }
    }

    /** Any other kind ({@code noqueue}, {@code pfifo_fast}, {@code mq}, ...); its options are not decoded. */
    record Other(String kind) implements QdiscInfo {
    }
}
