package io.jcni.runtime.internal.stale;

import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The second opinion on an attachment whose namespace path is gone: is a host end it recorded still there?
 *
 * <p>A veth pair lives as long as both of its namespaces: when the container's namespace goes, the kernel deletes the
 * pair, host end included. So a host-side interface of the cached result (one without {@code sandbox}) that still
 * exists, with the recorded MAC and a peer ({@code iflink} differs from its own index: a veth, not the bridge the
 * result also lists), means the container's namespace still exists, held by some process, although its path is gone
 * (a runtime that removed the file while a process lived on, a path in a mount namespace this process does not see).
 * Such an attachment is kept and reported: a DEL would cut a live namespace off. Attachments that record no host end
 * (macvlan, ipvlan, host-device: their link is inside the container) get no second opinion.
 *
 * <p>Read in this thread's network namespace ({@code /proc/thread-self/net/dev}, the names), with the MAC and
 * {@code iflink} from sysfs when sysfs is this namespace's (its {@code /sys/class/net} lists the same names). When it
 * is another namespace's (a process run with {@code nsenter --net} keeps the sysfs it had), a recorded host interface
 * that still exists counts as the host end unless other attachments record it too (a bridge is in every result of its
 * network, a veth in one): the cautious side, which may keep an attachment whose bridge has no other.
 */
public final class HostLinks {
    private final Set<String> names;
    private final boolean sysfsIsOurs;

    private HostLinks(Set<String> names, boolean sysfsIsOurs) {
        this.names = names;
        this.sysfsIsOurs = sysfsIsOurs;
    }

    /** The links of this thread's network namespace, now. */
    public static HostLinks read() {
        Set<String> names = new HashSet<>();
        try {
            String dev = Files.readString(Path.of("/proc/thread-self/net/dev"), StandardCharsets.US_ASCII);
            for (String line : dev.lines().skip(2).toList()) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    names.add(line.substring(0, colon).strip());
                }
            }
        } catch (IOException e) {
            return new HostLinks(null, false);
        }
        Set<String> sysfs = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/sys/class/net"))) {
            for (Path entry : entries) {
                sysfs.add(entry.getFileName().toString());
            }
        } catch (IOException e) {
            sysfs = Set.of();
        }
        return new HostLinks(names, sysfs.equals(names));
    }

    /**
     * Why the attachment whose result is {@code result} still has a namespace somewhere, or empty: the first host end
     * of the result that still exists as recorded.
     */
    public Optional<String> liveHostEnd(JsonObject result, Set<String> shared) {
        if (result == null || !(result.field("interfaces").orElse(Json.NULL) instanceof JsonArray interfaces)) {
            return Optional.empty();
        }
        if (names == null) {
            return Optional.of("the host's links cannot be read (/proc/thread-self/net/dev)");
        }
        for (Json element : interfaces.elements()) {
            if (!(element instanceof JsonObject link) || !text(link, "sandbox").isEmpty()) {
                continue;
            }
            String name = text(link, "name");
            if (name.isEmpty() || name.indexOf('/') >= 0 || !names.contains(name)) {
                continue;
            }
            if (!sysfsIsOurs) {
                if (shared.contains(name)) {
                    continue; // the network's bridge (or the like), not this attachment's own
                }
                return Optional.of("its host interface " + name + " is still there (sysfs is another namespace's: "
                        + "not examined further)");
            }
            Path sys = Path.of("/sys/class/net", name);
            String mac = text(link, "mac").toLowerCase(Locale.ROOT);
            String address = read(sys.resolve("address"));
            String index = read(sys.resolve("ifindex"));
            String peer = read(sys.resolve("iflink"));
            if (index.isEmpty() || index.equals(peer) || (!mac.isEmpty() && !mac.equals(address))) {
                continue; // gone meanwhile, no peer (the bridge), or another link of that name
            }
            return Optional.of("its host end " + name + (mac.isEmpty() ? "" : " (" + mac + ")")
                    + " is still there, so a process still holds the namespace");
        }
        return Optional.empty();
    }

    /** The names of the host-side interfaces (no {@code sandbox}) that a result records. */
    public static Set<String> hostInterfaces(JsonObject result) {
        Set<String> names = new HashSet<>();
        if (result != null && result.field("interfaces").orElse(Json.NULL) instanceof JsonArray interfaces) {
            for (Json element : interfaces.elements()) {
                if (element instanceof JsonObject link && text(link, "sandbox").isEmpty()
                        && !text(link, "name").isEmpty()) {
                    names.add(text(link, "name"));
                }
            }
        }
        return names;
    }

    private static String text(JsonObject object, String key) {
        return object.get(key).orElse(Json.NULL) instanceof JsonString s ? s.value() : "";
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).strip().toLowerCase(Locale.ROOT);
        } catch (IOException e) {
            return "";
        }
    }
}
