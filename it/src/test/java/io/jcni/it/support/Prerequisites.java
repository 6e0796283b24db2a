package io.jcni.it.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.function.Supplier;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What integration tests need from the machine, checked before a test starts. No silent pass: a missing peer (a
 * command, Go's plugins, the Go test tools, jcni's dist) fails the test and says how to get it, because
 * {@code scripts/setup} installs all of them on a machine of this kind. Only two things skip a test: a run without
 * root ({@link #assumeRoot}: the networking tests cannot run at all, as the README says) and a kernel feature this
 * machine kind lacks ({@link #assumeKernel}); both reasons start with a fixed prefix, and {@code SkipReport} lists
 * every skip at the end of the run. The architecture rules allow JUnit's assumptions nowhere else in the it module.
 */
public final class Prerequisites {

    private static final String SETUP = "run scripts/setup (as root) to install it";

    private Prerequisites() {}

    /** True when this JVM's effective user is root (read from /proc/self/status). */
    public static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0");
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The reason of a skip for want of root. */
    public static final String NOT_ROOT = "needs root: ";
    /** The prefix of a skip that depends on the kernel's features. */
    public static final String KERNEL = "kernel: ";

    /** Tests that create namespaces or links need root: skipped without it. */
    public static void assumeRoot() {
        assumeTrue(isRoot(), NOT_ROOT + "it creates network namespaces and links");
    }

    /**
     * Skips the test when the kernel is not what it needs ({@code present} false): it lacks a feature the test
     * exercises, or has the one whose absence the test exercises; {@code feature} says which, e.g. "lacks
     * CONFIG_NET_VRF (ip link add type vrf: Unknown device type)". The one skip besides {@link #assumeRoot}.
     */
    public static void assumeKernel(boolean present, Supplier<String> feature) {
        assumeTrue(present, () -> KERNEL + feature.get());
    }

    /** Fails the test: a peer it needs is missing, which scripts/setup installs. */
    public static void require(boolean present, Supplier<String> what) {
        if (!present) {
            throw new AssertionError("missing on this machine: " + what.get());
        }
    }

    /** {@code name} is an executable on PATH (e.g. {@code ip}, {@code nft}); fails the test otherwise. */
    public static void assumeCommand(String name) {
        require(onPath(name), () -> "'" + name + "' is not on PATH: " + SETUP);
    }

    /** The Go libcni driver and trivial plugin were built into {@link Locations#goBin()}. */
    public static void assumeGoTools() {
        Path skipped = Locations.goBin().resolve("SKIPPED");
        if (Files.isRegularFile(skipped)) {
            String reason;
            try {
                reason = Files.readString(skipped).strip();
            } catch (IOException e) {
                reason = "see " + skipped;
            }
            String why = reason;
            require(false, () -> "the Go test tools, not built: " + why);
        }
        for (Path tool : List.of(Locations.libcniDriver(), Locations.trivialPlugin())) {
            require(Files.isExecutable(tool), () -> tool + ": build the it module "
                    + "(it/scripts/build-go-tools.sh) after scripts/setup has installed golang-go and "
                    + "golang-github-appc-cni-dev");
        }
    }

    /** Debian's Go reference plugins of these types are installed. */
    public static void assumeReferencePlugins(String... types) {
        List<String> missing = missing(Locations.referencePlugins(), types);
        require(missing.isEmpty(), () -> "Go reference plugins " + missing + " in "
                + Locations.referencePlugins() + " (package containernetworking-plugins): " + SETUP);
    }

    /** jcni's own plugins of these types are in {@code dist/cni/bin}. */
    public static void assumeDistPlugins(String... types) {
        List<String> missing = missing(Locations.distCniBin(), types);
        require(missing.isEmpty(), () -> "jcni plugins " + missing + " in " + Locations.distCniBin()
                + ": they are produced by plugins-core in ./mvnw -B package");
    }

    /** The jcni CLI is in {@code dist/bin/jcni}. */
    public static void assumeJcniCli() {
        require(Files.isExecutable(Locations.distJcni()), () -> Locations.distJcni()
                + ": it is produced by ./mvnw -B package (runtime and plugins-core modules)");
    }

    private static List<String> missing(Path dir, String... types) {
        var missing = new ArrayList<String>();
        for (String type : types) {
            if (!Files.isExecutable(dir.resolve(type))) {
                missing.add(type);
            }
        }
        return missing;
    }

    /** Whether {@code name} is an executable in one of PATH's directories. */
    public static boolean onPath(String name) {
        return which(name) != null;
    }

    /** The executable {@code name} as PATH finds it, or null. */
    public static Path which(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
        }
        return null;
    }
}
