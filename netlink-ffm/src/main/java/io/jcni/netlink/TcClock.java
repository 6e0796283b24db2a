package io.jcni.netlink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's packet scheduler clock as {@code tc} and the Go netlink library learn it from {@code /proc/net/psched}:
 * traffic control parameters given as times (a token bucket's {@code buffer}, rate tables) are in <em>ticks</em>,
 * {@link #tickInUsec()} per microsecond (15.625 on current kernels: one tick is 64 ns).
 *
 * <p>The conversions here reproduce iproute2's {@code tc_core.c} to the bit ({@code tc_core_time2tick},
 * {@code tc_calc_xmittime}: double arithmetic, each result truncated to an unsigned 32-bit integer), so a qdisc
 * configured through this module carries the same numbers as one {@code tc} configures.
 *
 * @param tickInUsec ticks per microsecond ({@code t2us / us2t * clockFactor})
 * @param clockFactor the clock resolution over {@link #TIME_UNITS_PER_SEC}
 */
public record TcClock(double tickInUsec, double clockFactor) {

    /** {@code TIME_UNITS_PER_SEC} of iproute2's {@code tc_core.h}: tc's times are in microseconds. */
    public static final int TIME_UNITS_PER_SEC = 1_000_000;

    private static final Path PSCHED = Path.of("/proc/net/psched");
    private static volatile TcClock system;

    public TcClock {
        if (!(tickInUsec > 0) || !(clockFactor > 0)) {
            throw new IllegalArgumentException("tick and clock factor must be positive: " + tickInUsec + ", "
                    + clockFactor);
        }
    }

    /**
     * The running kernel's clock, read from {@code /proc/net/psched} once (the values are the same in every namespace).
     *
     * @throws NetlinkException if the file cannot be read or parsed
     */
    public static TcClock system() {
        TcClock c = system;
        if (c == null) {
            try {
                c = parse(new String(Files.readAllBytes(PSCHED), StandardCharsets.US_ASCII));
            } catch (IOException | IllegalArgumentException e) {
                throw new NetlinkException("read " + PSCHED, NetlinkException.Kind.OTHER, String.valueOf(e.getMessage()),
                        e);
            }
            system = c;
        }
        return c;
    }

    /**
     * Parses the content of {@code /proc/net/psched}: four hex words {@code t2us us2t clock_res hz}. As iproute2
     * ({@code tc_core_init}) does, a clock resolution of 1 GHz means a multiplier of 1 whatever {@code t2us} says.
     *
     * @throws IllegalArgumentException if the text is not of that form
     */
    public static TcClock parse(String psched) {
        String[] words = psched.trim().split("\\s+");
        if (words.length < 3) {
            throw new IllegalArgumentException("expected t2us us2t clock_res [hz] in hex, got \"" + psched.trim() + "\"");
        }
        long t2us = Long.parseLong(words[0], 16);
        long us2t = Long.parseLong(words[1], 16);
        long clockRes = Long.parseLong(words[2], 16);
        if (us2t == 0 || clockRes == 0) {
            throw new IllegalArgumentException("zero us2t or clock_res in \"" + psched.trim() + "\"");
        }
        if (clockRes == 1_000_000_000L) {
            t2us = us2t;
        }
        double clockFactor = (double) clockRes / TIME_UNITS_PER_SEC;
        return new TcClock((double) t2us / us2t * clockFactor, clockFactor);
    }

    /** {@code tc_core_time2tick}: {@code micros} (an unsigned 32-bit count) in ticks, truncated. */
    public long time2tick(long micros) {
        return u32(micros * tickInUsec);
    }

    /**
     * {@code tc_calc_xmittime}: the ticks it takes to send {@code size} bytes at {@code rate} bytes per second, as
     * {@code tc} computes it (the time in microseconds truncated first, then converted to ticks).
     */
    public long xmitTime(long rate, long size) {
        return time2tick(u32(TIME_UNITS_PER_SEC * ((double) size / (double) rate)));
    }

    /** A C conversion of a non-negative double to {@code unsigned int}: truncated; values beyond 32 bits clamp. */
    static long u32(double value) {
        if (!(value > 0)) {
            return 0;
        }
        return value >= 4294967295.0 ? 0xFFFFFFFFL : (long) value;
    }
}
