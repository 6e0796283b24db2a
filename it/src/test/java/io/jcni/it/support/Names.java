package io.jcni.it.support;

import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Unique names for what tests create on the host: {@code jcni-<tag>-<random hex>}, so that engineers' tests running at
 * the same time on one machine never collide, and {@link LeakCheck} can find leftovers by prefix. Every name handed
 * out is remembered, so that {@link HostStateGuard} can tell what this JVM made on the host from what another process
 * on the machine did.
 */
public final class Names {

    /** Linux's IFNAMSIZ is 16 including the terminating NUL. */
    public static final int MAX_LINK_NAME = 15;

    private static final Set<String> MADE = ConcurrentHashMap.newKeySet();

    private Names() {}

    /** Whether {@link #netns} or {@link #link} handed out this name in this JVM. */
    public static boolean madeHere(String name) {
        return MADE.contains(name);
    }

    /** {@code jcni-<tag>-}: the prefix of every name made for {@code tag}. */
    public static String prefix(String tag) {
        if (tag.isEmpty() || !tag.matches("[a-z0-9]+")) {
            throw new IllegalArgumentException("tag must be lower-case letters and digits: '" + tag + "'");
        }
        return "jcni-" + tag + "-";
    }

    /** A network namespace name: the prefix and 8 random hex digits. */
    public static String netns(String tag) {
        return remember(prefix(tag) + randomHex(8));
    }

    /** A host link name (bridge, veth) of exactly {@link #MAX_LINK_NAME} characters: the prefix padded with hex. */
    public static String link(String tag) {
        String prefix = prefix(tag);
        int room = MAX_LINK_NAME - prefix.length();
        if (room < 4) {
            throw new IllegalArgumentException("tag '" + tag + "' leaves fewer than 4 random characters in a link name");
        }
        return remember(prefix + randomHex(room));
    }

    private static String remember(String name) {
        MADE.add(name);
        return name;
    }

    static String randomHex(int digits) {
        byte[] bytes = new byte[(digits + 1) / 2];
        ThreadLocalRandom.current().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes).substring(0, digits);
    }
}
