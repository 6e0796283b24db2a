package io.jcni.plugins.testing;

import io.jcni.spec.CniException;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import java.net.InetAddress;

/** Address and prefix literals for tests, read by the data model; a typo fails the test at once. */
public final class Addresses {
    private Addresses() {
    }

    /** {@code 10.1.0.5/24}, host bits kept. */
    public static IpPrefix prefix(String text) {
        try {
            return IpPrefix.parse(text, "test");
        } catch (CniException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** {@code 10.1.0.1}, {@code fd00::1}. */
    public static InetAddress ip(String text) {
        try {
            return IpText.parseAddress(text, "test");
        } catch (CniException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
