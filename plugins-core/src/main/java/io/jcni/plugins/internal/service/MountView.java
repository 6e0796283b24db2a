package io.jcni.plugins.internal.service;

import io.jcni.runtime.internal.files.BoundedFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether a client sees the files the service sees. A plugin keeps its state in files (host-local's
 * {@code /var/lib/cni/networks}, dhcp's socket, the tuning allowlist): run in the service, it reads and writes them in
 * the service's mount namespace, while the runtime that exec'd the client may look in its own. podman run in a mount
 * namespace with its own {@code /var/lib/cni} is one such caller: its reservations must land where it looks. Such a
 * call goes to the JVM launcher, which runs where the client runs ('E' in {@link Protocol}).
 *
 * <p>Same mount namespace: same files. Another one (every {@code ip netns exec} makes one): the same files if both
 * list the same mounts, each as (device, root in its file system, mount point), apart from what a plugin in the
 * service gets from the client anyway: {@code /sys} and everything under it (the client hands its {@code /sys}
 * over), namespace files ({@code nsfs}: {@code CNI_NETNS} is handed over as a descriptor), and the files that
 * {@code ip netns exec} binds from {@code /etc/netns/NAME} over {@code /etc}.
 */
final class MountView {
    /** The largest mount table read from a client (a node with thousands of mounts has a few hundred KiB). */
    static final int MAX_MOUNTINFO = 16 << 20;

    private final String home;

    MountView() {
        this.home = namespace(Path.of("/proc/self/ns/mnt"));
    }

    /** The service's own working directory, where each call thread returns after a call made elsewhere. */
    private final io.jcni.netlink.sys.Descriptor ownCwd = io.jcni.netlink.sys.Descriptor.openPath(Path.of("."));
    /** Device and inode of the service's working and root directories, read once (each call compares with them). */
    private final Map<String, Object> ownCwdId = identity(ownCwd.procPath());
    private final Map<String, Object> ownRootId = identity(Path.of("/"));

    private static Map<String, Object> identity(Path dir) {
        try {
            return Files.readAttributes(dir, "unix:dev,ino");
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    /**
     * The client's working directory if it is not this service's (then the call runs there: relative paths in its
     * configuration, and delegates it execs, see what an exec'd plugin would), or null.
     */
    io.jcni.netlink.sys.Descriptor otherCwd(io.jcni.netlink.sys.Descriptor clientCwd) {
        if (clientCwd == null) {
            return null;
        }
        try {
            Map<String, Object> theirs = Files.readAttributes(clientCwd.procPath(), "unix:dev,ino");
            return theirs.equals(ownCwdId) ? null : clientCwd;
        } catch (IOException | RuntimeException e) {
            return clientCwd; // fchdir reports what it is
        }
    }

    /** The service's working directory (a descriptor, kept open). */
    io.jcni.netlink.sys.Descriptor ownCwd() {
        return ownCwd;
    }

    /**
     * Whether {@code dir} (a client's root directory, as {@code /proc/self/fd/N}) is this service's root: the same
     * directory (device and inode). A chrooted client's is another: the paths it hands over mean other files.
     */
    boolean isRoot(Path dir) {
        try {
            return Files.readAttributes(dir, "unix:dev,ino").equals(ownRootId);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Null if the client sees the files the service sees, else why not.
     *
     * @param mountNs   the client's mount namespace (a descriptor's {@code /proc/self/fd} path), or null
     * @param mountInfo the client's {@code /proc/self/mountinfo} (likewise), or null
     */
    String difference(Path mountNs, Path mountInfo) {
        if (mountNs == null || mountInfo == null) {
            return "the client did not say which files it sees";
        }
        String theirs = namespace(mountNs);
        if (theirs != null && theirs.equals(home)) {
            return null;
        }
        Set<String> client;
        Set<String> service;
        try {
            client = mounts(new String(BoundedFiles.read(mountInfo, MAX_MOUNTINFO, BoundedFiles.Links.FOLLOW),
                    StandardCharsets.UTF_8));
            service = mounts(Files.readString(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return "could not compare the mounts: " + e.getMessage();
        }
        List<String> only = new ArrayList<>();
        for (String m : client) {
            if (!service.contains(m)) {
                only.add("client has " + m);
            }
        }
        for (String m : service) {
            if (!client.contains(m)) {
                only.add("service has " + m);
            }
        }
        if (only.isEmpty()) {
            return null;
        }
        return "other mounts (device root mount-point): " + String.join("; ", only.subList(0, Math.min(3,
                only.size()))) + (only.size() > 3 ? "; and " + (only.size() - 3) + " more" : "");
    }

    /**
     * The mounts of a {@code /proc/PID/mountinfo} text that decide which files a plugin sees, each as "device root
     * mount-point" (fields 3 to 5; mount ids differ between namespaces even for the same mount).
     */
    static Set<String> mounts(String mountinfo) {
        Set<String> out = new LinkedHashSet<>();
        for (String line : mountinfo.split("\n")) {
            String[] f = line.split(" ");
            int separator = -1;
            for (int i = 6; i < f.length; i++) {
                if (f[i].equals("-")) {
                    separator = i;
                    break;
                }
            }
            if (f.length < 7 || separator < 0 || separator + 1 >= f.length) {
                continue;
            }
            String root = f[3];
            String point = f[4];
            String type = f[separator + 1];
            if (type.equals("nsfs") || point.equals("/sys") || point.startsWith("/sys/")
                    || root.startsWith("/etc/netns/")) {
                continue;
            }
            out.add(f[2] + " " + root + " " + point);
        }
        return out;
    }

    private static String namespace(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
