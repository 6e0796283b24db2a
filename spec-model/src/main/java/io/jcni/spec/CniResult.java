package io.jcni.spec;

/**
 * A success result of any protocol version: {@link Result} for 0.3.0 and later, {@link LegacyResult} for 0.1.0 and
 * 0.2.0 (the {@code ip4}/{@code ip6} shape).
 */
public sealed interface CniResult permits Result, LegacyResult {

    /** The version this result is expressed in. */
    CniVersion cniVersion();

    /** DNS settings. */
    Dns dns();
}
