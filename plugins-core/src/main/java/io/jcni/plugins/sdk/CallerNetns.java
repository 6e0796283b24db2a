package io.jcni.plugins.sdk;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.sys.Descriptor;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The network side of the process that made a call, as it sees it, for a host that runs plugin calls on behalf of
 * other processes: jcni's plugin service, whose client opens {@code CNI_NETNS} (in the runtime's mount namespace, with
 * {@code O_PATH}, so nothing blocks) and its {@code /sys}, and hands both descriptors over with {@code SCM_RIGHTS}.
 * Given to {@link Skel#run(java.util.Map, byte[], java.io.OutputStream, java.io.OutputStream, CallerNetns)}:
 * <ul>
 * <li>{@code CNI_NETNS}: what the call's plugin opens when it opens {@code CNI_NETNS}, with the same checks and the
 * same messages (which name the path, never the descriptor), and what the skel compares with the plugin's own
 * namespace; the path text itself is unchanged everywhere else (results name it as the {@code sandbox});</li>
 * <li>sysfs ({@link #sysfs()}): where the plugin reads {@code /sys} (host-device's {@code kernelpath} and
 * {@code pciBusID}). sysfs lists the devices of the network namespace it was mounted for, so the service's own
 * {@code /sys} shows other devices than a runtime's in another namespace ({@code ip netns exec} mounts one).</li>
 * </ul>
 *
 * <p>Sharp edge: plugins open the namespace through {@code Namespace.container(request.netns())}, which asks
 * {@link #open(String)}, and find sysfs through {@link #sysfs()}; the hand-over is found through a thread-local that
 * the skel sets on the thread running the call, for the call's duration (rollback steps and in-process delegates
 * included). Code doing either on another thread would use the paths instead. Instances are immutable; the
 * descriptors stay the host's to close after the call.
 */
public final class CallerNetns {
    private static final ThreadLocal<Scope> CURRENT = new ThreadLocal<>();
    private static final Path SYSFS = Path.of("/sys");

    /** Null when nothing was handed over for CNI_NETNS ({@link #absent} or {@link #byPath}). */
    private final Descriptor descriptor;
    private final boolean absent;
    private final Descriptor sysfs;

    private CallerNetns(Descriptor descriptor, boolean absent, Descriptor sysfs) {
        this.descriptor = descriptor;
        this.absent = absent;
        this.sysfs = sysfs;
    }

    /** The caller opened {@code CNI_NETNS}: this descriptor refers to what it found there. */
    public static CallerNetns descriptor(Descriptor descriptor) {
        return new CallerNetns(Objects.requireNonNull(descriptor, "descriptor"), false, null);
    }

    /** Nothing exists at {@code CNI_NETNS} where the caller looked (it got ENOENT): the call sees no namespace. */
    public static CallerNetns absent() {
        return new CallerNetns(null, true, null);
    }

    /** {@code CNI_NETNS} is not handed over (unset, or the caller could not open it): the plugin opens the path. */
    public static CallerNetns byPath() {
        return new CallerNetns(null, false, null);
    }

    /** The same, with the caller's {@code /sys} (a directory descriptor) as the call's sysfs. */
    public CallerNetns withSysfs(Descriptor sysfsDirectory) {
        return new CallerNetns(descriptor, absent, Objects.requireNonNull(sysfsDirectory, "sysfsDirectory"));
    }

    /**
     * Where the call running on this thread finds sysfs: the caller's {@code /sys} when one was handed over (as
     * {@code /proc/self/fd/N}, which reaches it from here), else {@code /sys}.
     */
    public static Path sysfs() {
        Scope scope = CURRENT.get();
        return scope == null || scope.handed == null || scope.handed.sysfs == null ? SYSFS
                : scope.handed.sysfs.procPath();
    }

    /**
     * Opens the network namespace at {@code path} for the call running on this thread: what its caller handed over
     * when {@code path} is the call's {@code CNI_NETNS}, else {@code path} itself ({@link NetNs#open(Path)}).
     *
     * @throws NetlinkException NOT_FOUND if nothing is there, as {@link NetNs#open(Path)} says it
     */
    public static NetNs open(String path) {
        CallerNetns handed = handedFor(path);
        if (handed == null || (handed.descriptor == null && !handed.absent)) {
            return NetNs.open(Path.of(path));
        }
        if (handed.absent) {
            throw new NetlinkException("open " + path, NetlinkException.Kind.NOT_FOUND,
                    "nothing there where the caller looked", null);
        }
        return NetNs.openDescriptor(handed.descriptor, Path.of(path));
    }

    /**
     * Where the file the call's caller found at {@code path} can be examined in this process ({@code /proc/self/fd/N}),
     * {@code path} itself when nothing was handed over for it, or null when the caller found nothing there.
     */
    static Path examinable(String path) {
        CallerNetns handed = handedFor(path);
        if (handed == null || (handed.descriptor == null && !handed.absent)) {
            return Path.of(path);
        }
        return handed.absent ? null : handed.descriptor.procPath();
    }

    private static CallerNetns handedFor(String path) {
        Scope scope = CURRENT.get();
        return scope != null && scope.path.equals(path) ? scope.handed : null;
    }

    /** The skel, around a call: {@code handed} stands for {@code path} on this thread until {@link Scope#close()}. */
    static Scope enter(String path, CallerNetns handed) {
        Scope scope = new Scope(path, handed, CURRENT.get());
        CURRENT.set(scope);
        return scope;
    }

    /** One call's hand-over on this thread; closing it makes the enclosing one (if any) current again. */
    static final class Scope implements AutoCloseable {
        private final String path;
        private final CallerNetns handed;
        private final Scope outer;

        private Scope(String path, CallerNetns handed, Scope outer) {
            this.path = path;
            this.handed = handed;
            this.outer = outer;
        }

        @Override
        public void close() {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }
}
