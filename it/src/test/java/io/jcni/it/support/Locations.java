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

    /** {@code dist/bin/jcni}: the runtime CLI (and {@code jcni serve}, the plugin service). */
    public static Path distJcni() {
        return dist().resolve("bin/jcni");
    }

    /** {@code dist/cni/jvm/<type>}: the JVM launcher a plugin client runs when no plugin service answers. */
    public static Path distJvmPlugin(String type) {
        return dist().resolve("cni/jvm").resolve(type);
    }

    /**
     * The containerd harness's files in this module ({@code src/test/containerd}: the CRI client, the node's mount
     * script, the image builder, containerd's configuration and the CNI configuration template); property
     * {@code jcni.it.containerdSupport}.
     */
    public static Path containerdSupport() {
        return Path.of(System.getProperty("jcni.it.containerdSupport", "src/test/containerd")).toAbsolutePath();
    }

    /**
     * The simulated cluster of {@code src/test/cluster} ({@code cluster_sim.py}: etcd, nodes with their services, pods
     * started by Go libcni, faults), which benchmarks/compare.sh's cluster-scale suite runs too; property
     * {@code jcni.it.clusterSupport}.
     */
    public static Path clusterSupport() {
        return Path.of(System.getProperty("jcni.it.clusterSupport", "src/test/cluster")).toAbsolutePath();
    }

    /** Debian's containerd ({@code containerd} package), whose binary also carries the CRI API's descriptors. */
    public static Path containerd() {
        return Path.of(System.getProperty("jcni.it.containerd", "/usr/bin/containerd"));
    }

    /**
     * Debian's Python, the one with {@code python3-grpcio} and {@code python3-protobuf} (a {@code python3} first on
     * PATH may be another, e.g. pyenv's); property {@code jcni.it.python}.
     */
    public static Path debianPython() {
        return Path.of(System.getProperty("jcni.it.python", "/usr/bin/python3"));
    }

    /** System property naming how jcni's plugins run in this run of the suite: {@code exec} (default) or {@code service}. */
    public static final String PLUGIN_MODE_PROPERTY = "jcni.it.pluginMode";

    /**
     * Whether this run of the suite sends jcni's plugin calls through the plugin service: the it module's second
     * surefire execution starts one ({@link PluginServiceRegistration}) on the socket its environment names in
     * {@code JCNI_SERVICE_SOCKET}, which every plugin client of the run inherits. The first execution sets
     * {@code JCNI_SERVICE_SOCKET=off}, so the clients run their JVM launchers.
     */
    public static boolean viaService() {
        String mode = System.getProperty(PLUGIN_MODE_PROPERTY, "exec");
        if (!mode.equals("exec") && !mode.equals("service")) {
            throw new IllegalStateException(PLUGIN_MODE_PROPERTY + " is exec or service, not " + mode);
        }
        return mode.equals("service");
    }

    /** How the skel's {@code JCNI_DEBUG=1} line names a call of this run: {@code "exec"} or {@code "via service"}. */
    public static String skelMode() {
        return viaService() ? "via service" : "exec";
    }
}
