package io.jcni.plugins.internal.pkg.ipam.ranges;

/** What an ADD does when the attachment already holds an address in a range set (and requested no specific one). */
public enum OnExisting {
    /** Return the address it holds: a repeated ADD gets the same allocation. */
    REUSE,
    /**
     * Fail as Go host-local 1.1.1 does: {@code "10.1.0.2 has been allocated to c1, duplicate allocation is not
     * allowed"}.
     */
    REJECT
}
