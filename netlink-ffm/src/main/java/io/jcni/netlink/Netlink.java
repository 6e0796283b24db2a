package io.jcni.netlink;

import io.jcni.netlink.internal.ffm.NativeAccess;
import io.jcni.netlink.internal.rtnl.HandleImpl;
import java.util.Optional;

/**
 * Entry point: opens {@link NetlinkHandle}s and probes whether the native layer can work in this process.
 *
 * <pre>{@code
 * try (NetNs container = NetNs.open(Path.of(cniNetns));
 *      NetlinkHandle nl = Netlink.open(container)) {
 *     nl.addVeth(LinkAttrs.named("eth0").mtu(1500), LinkAttrs.named(hostVeth).netns(hostNs));
 *     Link eth0 = nl.link("eth0");
 *     nl.addAddress(eth0.index(), InetAddress.ofLiteral("10.22.0.5"), 16);
 *     nl.setUp(eth0.index());
 * }
 * }</pre>
 *
 * <p>The process must grant native access to this module: {@code --enable-native-access=io.jcni.netlink} (or
 * {@code ALL-UNNAMED} on the class path). Nothing native is touched until the first handle, namespace or lock is
 * opened.
 */
public final class Netlink {
    private Netlink() {}

    /** The flag that grants this module native access. */
    public static final String NATIVE_ACCESS_FLAG = NativeAccess.FLAG;

    /** A handle in the calling thread's network namespace (for a virtual thread: its carrier's, the process's). */
    public static NetlinkHandle open() {
        return HandleImpl.open(null);
    }

    /**
     * A handle in {@code netns}. Its socket is created by a dedicated platform thread switched into the namespace
     * and back; the handle stays bound to {@code netns} even after {@code netns} is closed.
     */
    public static NetlinkHandle open(NetNs netns) {
        return HandleImpl.open(netns);
    }

    /**
     * Why netlink cannot work in this process (native access not granted, not Linux, unsupported architecture), with
     * the fix; empty when it can. Makes no native call.
     */
    public static Optional<String> unavailability() {
        return Optional.ofNullable(NativeAccess.problem());
    }

    /**
     * Starts linking the native layer on a daemon platform thread, for a short-lived process that will need it and
     * has other work to do first (an exec'd CNI plugin decoding its input): the JDK's first downcall costs 10-20 ms of
     * class initialization and generated code, which then overlaps that work. The first native use of this module
     * waits for it to finish rather than duplicate it. Returns at once; does nothing if native access is unavailable
     * (the first real use reports why) or if called before.
     */
    public static void prepareInBackground() {
        NativeAccess.prepareInBackground();
    }

    /**
     * Throws {@link NetlinkException.Kind#UNAVAILABLE} with the fix (e.g. {@code --enable-native-access=io.jcni.netlink})
     * if netlink cannot work in this process. Launchers call it first to fail with a clear message.
     */
    public static void checkAvailable() {
        NativeAccess.check();
    }
}
