package io.jcni.plugins.sdk;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.sys.Descriptor;
import java.nio.file.Path;
import java.util.Objects;

/**
 * {@code CNI_NETNS} as the process that made a call opened it, for a host that runs plugin calls on behalf of other
 * processes: jcni's plugin service, whose client opens {@code CNI_NETNS} (in the runtime's mount namespace, with
 * {@code O_PATH}, so nothing blocks) and hands the descriptor over with {@code SCM_RIGHTS}. Given to
 * {@link Skel#run(java.util.Map, byte[], java.io.OutputStream, java.io.OutputStream, CallerNetns)}, it is what the
 * call's plugin opens when it opens {@code CNI_NETNS}, with the same checks and the same messages (which name the
 * path, never the descriptor), and what the skel compares with the plugin's own namespace; the path text itself is
 * unchanged everywhere else (results name it as the {@code sandbox}).
 *
 * <p>Sharp edge: plugins open the namespace through {@code Namespace.container(request.netns())}, which asks
 * {@link #open(String)}; the hand-over is found through a thread-local that the skel sets on the thread running the
 * call, for the call's duration (rollback steps and in-process delegates included). Code that opens the container's
 * namespace on another thread would open the path instead. Instances are immutable; the descriptor stays the host's
 * to close after the call.
 */
public final class CallerNetns {
    private static final ThreadLocal<Scope> CURRENT = new ThreadLocal<>();

    private final Descriptor descriptor;

    private CallerNetns(Descriptor descriptor) {
        this.descriptor = descriptor;
    }

    /** The caller opened {@code CNI_NETNS}: this descriptor refers to what it found there. */
    public static CallerNetns descriptor(Descriptor descriptor) {
        return new CallerNetns(Objects.requireNonNull(descriptor, "descriptor"));
    }

    /** Nothing exists at {@code CNI_NETNS} where the caller looked (it got ENOENT): the call sees no namespace. */
    public static CallerNetns absent() {
        return new CallerNetns(null);
    }

    /**
     * Opens the network namespace at {@code path} for the call running on this thread: what its caller handed over
     * when {@code path} is the call's {@code CNI_NETNS}, else {@code path} itself ({@link NetNs#open(Path)}).
     *
     * @throws NetlinkException NOT_FOUND if nothing is there, as {@link NetNs#open(Path)} says it
     */
    public static NetNs open(String path) {
        CallerNetns handed = handedFor(path);
        if (handed == null) {
            return NetNs.open(Path.of(path));
        }
        if (handed.descriptor == null) {
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
        if (handed == null) {
            return Path.of(path);
        }
        return handed.descriptor == null ? null : handed.descriptor.procPath();
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
