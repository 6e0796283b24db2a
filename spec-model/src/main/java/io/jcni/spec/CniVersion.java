package io.jcni.spec;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A CNI protocol version: the core of a Semantic Version 2.0 ({@code MAJOR.MINOR.PATCH}).
 *
 * <p>Parsing follows the spec with one rule from libcni: an empty or absent {@code cniVersion} means 0.1.0. Only the
 * plain core form is accepted (digits, no leading zeros, no sign, no pre-release or build suffix): libcni compares
 * versions as exact strings when it picks a result type or reconciles a plugin's supported versions, so "1.0" or
 * "01.0.0" could never work end to end and are rejected up front with code 1.
 *
 * <p>Any well-formed version can be represented; {@link #isSupported()} tells whether jcni implements it.
 */
public record CniVersion(int major, int minor, int patch) implements Comparable<CniVersion> {

    public static final CniVersion V0_1_0 = new CniVersion(0, 1, 0);
    public static final CniVersion V0_2_0 = new CniVersion(0, 2, 0);
    public static final CniVersion V0_3_0 = new CniVersion(0, 3, 0);
    public static final CniVersion V0_3_1 = new CniVersion(0, 3, 1);
    public static final CniVersion V0_4_0 = new CniVersion(0, 4, 0);
    public static final CniVersion V1_0_0 = new CniVersion(1, 0, 0);
    public static final CniVersion V1_1_0 = new CniVersion(1, 1, 0);

    /** Every version jcni implements, ascending. */
    public static final List<CniVersion> SUPPORTED = List.of(V0_1_0, V0_2_0, V0_3_0, V0_3_1, V0_4_0, V1_0_0, V1_1_0);

    /** The newest version jcni implements. */
    public static final CniVersion LATEST = V1_1_0;

    public CniVersion {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException("version components must not be negative: " + major + "." + minor + "."
                    + patch);
        }
    }

    /**
     * Parses a {@code cniVersion} value; "" is 0.1.0.
     *
     * @throws CniException code 1 ({@link CniError#INCOMPATIBLE_CNI_VERSION}) if the text is not {@code MAJOR.MINOR.PATCH}
     */
    public static CniVersion parse(String text) throws CniException {
        return parse(text, "cniVersion");
    }

    /** As {@link #parse(String)}, naming {@code field} in the error message. */
    public static CniVersion parse(String text, String field) throws CniException {
        if (text == null || text.isEmpty()) {
            return V0_1_0;
        }
        int[] parts = new int[3];
        int part = 0;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '.') {
                if (part == 3 || !validComponent(text, start, i)) {
                    throw invalid(text, field);
                }
                parts[part++] = Integer.parseInt(text, start, i, 10);
                start = i + 1;
            }
        }
        if (part != 3) {
            throw invalid(text, field);
        }
        return of(parts[0], parts[1], parts[2]);
    }

    /**
     * Parses a version and requires jcni to implement it.
     *
     * @throws CniException code 1 if malformed or not one of {@link #SUPPORTED}
     */
    public static CniVersion parseSupported(String text, String field) throws CniException {
        CniVersion version = parse(text, field);
        if (!version.isSupported()) {
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    field + ": unsupported CNI version \"" + text + "\"", "jcni supports " + SUPPORTED);
        }
        return version;
    }

    private static boolean validComponent(String text, int from, int to) {
        int length = to - from;
        if (length == 0 || length > 9 || (length > 1 && text.charAt(from) == '0')) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static CniException invalid(String text, String field) {
        return new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                field + ": invalid CNI version \"" + text + "\": expected MAJOR.MINOR.PATCH");
    }

    private static CniVersion of(int major, int minor, int patch) {
        for (CniVersion known : SUPPORTED) {
            if (known.major == major && known.minor == minor && known.patch == patch) {
                return known;
            }
        }
        return new CniVersion(major, minor, patch);
    }

    /** True if jcni implements this version (one of {@link #SUPPORTED}). */
    public boolean isSupported() {
        return SUPPORTED.contains(this);
    }

    /** True if this version is {@code other} or newer. */
    public boolean atLeast(CniVersion other) {
        return compareTo(other) >= 0;
    }

    /** True if this version is older than {@code other}. */
    public boolean before(CniVersion other) {
        return compareTo(other) < 0;
    }

    /** True for 0.1.0 and 0.2.0, whose results have the {@code ip4}/{@code ip6} shape. */
    public boolean hasLegacyResult() {
        return before(V0_3_0);
    }

    /** CHECK exists from 0.4.0 on. */
    public boolean supportsCheck() {
        return atLeast(V0_4_0);
    }

    /** GC and STATUS exist from 1.1.0 on. */
    public boolean supportsGcAndStatus() {
        return atLeast(V1_1_0);
    }

    /** The highest of {@code candidates} that jcni implements, if any. */
    public static Optional<CniVersion> highestSupported(Collection<CniVersion> candidates) {
        CniVersion best = null;
        for (CniVersion candidate : candidates) {
            if (candidate.isSupported() && (best == null || candidate.compareTo(best) > 0)) {
                best = candidate;
            }
        }
        return Optional.ofNullable(best);
    }

    @Override
    public int compareTo(CniVersion other) {
        int c = Integer.compare(major, other.major);
        if (c == 0) {
            c = Integer.compare(minor, other.minor);
        }
        return c != 0 ? c : Integer.compare(patch, other.patch);
    }

    // equals and hashCode are written out: the record defaults bootstrap through invokedynamic, which costs start-up
    // time on the plugin exec path (isSupported runs on every decode).
    @Override
    public boolean equals(Object other) {
        return other instanceof CniVersion v && v.major == major && v.minor == minor && v.patch == patch;
    }

    @Override
    public int hashCode() {
        return (major * 31 + minor) * 31 + patch;
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
