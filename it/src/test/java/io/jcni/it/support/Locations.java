package io.jcni.it.support;

import java.nio.file.Path;

/**
 * Where the integration tests find the programs they run. Each location can be overridden by a system property
 * (the it module's surefire configuration sets them from the build); the defaults suit a run from the {@code it}
 * directory. Nothing here checks existence: {@link Prerequisites} does, and skips with the reason.
 */
public final class Locations {

    private Locations() {}

    /** Debian's Go reference plugins ({@code containernetworking-plugins}); property {@code jcni.it.referencePlugins}. */
    public static Path referencePlugins() {
        return Path.of(System.getProperty("jcni.it.referencePlugins", "/usr/lib/cni"));
    }

    /** A Go reference plugin by type, e.g. {@code bridge}. */
    public static Path referencePlugin(String type) {
        return referencePlugins().resolve(type);
    }

    /** Output of {@code it/scripts/build-go-tools.sh}; property {@code jcni.it.goBin}. */
    public static Path goBin() {
        return Path.of(System.getProperty("jcni.it.goBin", "target/go-bin")).toAbsolutePath();
    }

    /** The Go libcni driver (see {@link LibcniDriver}). */
    public static Path libcniDriver() {
        return goBin().resolve("libcni-driver");
    }

    /** The Go trivial plugin; its type, for a CNI_PATH of {@link #goBin()}, is {@link #TRIVIAL_PLUGIN_TYPE}. */
    public static Path trivialPlugin() {
        return goBin().resolve(TRIVIAL_PLUGIN_TYPE);
    }

    public static final String TRIVIAL_PLUGIN_TYPE = "trivial-plugin";

    /** What {@code ./mvnw -B package} produces; property {@code jcni.dist.dir} (the parent POM's property). */
    public static Path dist() {
        return Path.of(System.getProperty("jcni.dist.dir", "../dist")).toAbsolutePath().normalize();
    }

    /** {@code dist/cni/bin}: jcni's plugins, CNI_PATH-ready. */
    public static Path distCniBin() {
        return dist().resolve("cni/bin");
    }

    /** {@code dist/cni/bin/<type>}. */
    public static Path distPlugin(String type) {
        return distCniBin().resolve(type);
    }

    /** {@code dist/bin/jcni}: the runtime CLI. */
    public static Path distJcni() {
        return dist().resolve("bin/jcni");
    }
}
