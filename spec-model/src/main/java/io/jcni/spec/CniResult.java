package io.jcni.spec;

/**
 * A success result of any protocol version: {@link Result} for 0.3.0 and later, {@link LegacyResult} for 0.1.0 and
 * 0.2.0 (the {@code ip4}/{@code ip6} shape). {@link #convertTo} converts between every pair of versions.
 */
public sealed interface CniResult permits Result, LegacyResult {

    /** The version this result is expressed in. */
    CniVersion cniVersion();

    /** DNS settings. */
    Dns dns();

    /**
     * This result in {@code target}'s shape, with the outcome of libcni's {@code GetAsVersion} (details and the
     * places where jcni follows the spec instead: {@link io.jcni.spec.Result}). The same version returns this object.
     *
     * @throws CniException code 1 if {@code target} is not a version jcni implements ("no converter for CNI result
     *                      version X to Y"), or if a 0.1.0/0.2.0 target is asked of a result without any IP address
     *                      ("cannot convert: no valid IP addresses")
     */
    default CniResult convertTo(CniVersion target) throws CniException {
        return io.jcni.spec.internal.ResultConverter.convert(this, target);
    }
}
