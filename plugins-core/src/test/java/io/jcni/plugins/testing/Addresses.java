package io.jcni.plugins.testing;

import io.jcni.spec.CniException;
import io.jcni.spec.IpPrefix;
import java.net.InetAddress;

/** Address and prefix literals for tests, parsed by the data model (code 7 on a typo). */
public final class Addresses {
    private Addresses() {
    }

    /** {@code 10.1.0.5/24}, host bits kept. */
    public static IpPrefix prefix(String text) throws CniException {
        return IpPrefix.parse(text, "test");
    }

    /** {@code 10.1.0.1}, {@code fd00::1}. */
    public static InetAddress ip(String text) throws CniException {
        return IpPrefix.parseAddress(text, "test");
    }
}
