package io.jcni.it.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * JUnit assumptions for what integration tests need from the machine. Each one skips the test (never fails it) and
 * says how to get what is missing.
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

    /** Tests that create namespaces or links need root. */
    public static void assumeRoot() {
        assumeTrue(isRoot(), "needs root: it creates network namespaces and links");
    }

    /** {@code name} is an executable on PATH (e.g. {@code ip}, {@code nft}). */
    public static void assumeCommand(String name) {
        assumeTrue(onPath(name), () -> "'" + name + "' is not on PATH: " + SETUP);
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
            assumeTrue(false, "Go test tools were not built: " + reason);
        }
        for (Path tool : List.of(Locations.libcniDriver(), Locations.trivialPlugin())) {
            assumeTrue(Files.isExecutable(tool), () -> tool + " is missing: build the it module "
                    + "(it/scripts/build-go-tools.sh) after scripts/setup has installed golang-go and "
                    + "golang-github-appc-cni-dev");
        }
    }

    /** Debian's Go reference plugins of these types are installed. */
    public static void assumeReferencePlugins(String... types) {
        List<String> missing = missing(Locations.referencePlugins(), types);
        assumeTrue(missing.isEmpty(), () -> "Go reference plugins " + missing + " missing in "
                + Locations.referencePlugins() + " (package containernetworking-plugins): " + SETUP);
    }

    /** jcni's own plugins of these types are in {@code dist/cni/bin}. */
    public static void assumeDistPlugins(String... types) {
        List<String> missing = missing(Locations.distCniBin(), types);
        assumeTrue(missing.isEmpty(), () -> "jcni plugins " + missing + " missing in " + Locations.distCniBin()
                + ": they are produced by plugins-core in ./mvnw -B package");
    }

    /** The jcni CLI is in {@code dist/bin/jcni}. */
    public static void assumeJcniCli() {
        assumeTrue(Files.isExecutable(Locations.distJcni()), () -> Locations.distJcni()
                + " is missing: it is produced by ./mvnw -B package (runtime and plugins-core modules)");
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
