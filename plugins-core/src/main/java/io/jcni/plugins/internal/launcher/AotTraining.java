package io.jcni.plugins.internal.launcher;

import io.jcni.netlink.Netlink;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.internal.PluginTable;
import io.jcni.plugins.internal.ipam.dhcp.DaemonServer;
import io.jcni.plugins.internal.ipam.dhcp.LeaseManager;
import io.jcni.plugins.sdk.Skel;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The build's AOT training run: real plugin calls, in one JVM, through the same {@link Skel} code an exec runs, so the
 * AOT cache written at exit holds what a plugin start needs. Each call's exit status is checked: a training run that
 * fails its own calls fails the build rather than train a cache on error paths only.
 *
 * <p>Only plugin code paths belong here: every class the training loads is in the cache, and the JVM loads every cached
 * class at each start, so a stream or lambda used for bookkeeping here would cost every plugin exec.
 *
 * <p>Arguments: {@code --aot-training <group> <work dir> [<netns path>]}: the calls of the plugins of one AOT group
 * ({@link PluginTable.Group}). The work dir (empty, created by the caller) holds host-local's data dir and is
 * emptied again before returning; a namespace path (given only when the build runs as root) adds loopback calls in
 * that namespace. Nothing else on the host is touched.
 */
final class AotTraining {
    static final String FLAG = "--aot-training";

    private final String group;
    private final Path work;
    private final String netns;
    private final StringBuilder failures = new StringBuilder();
    private int calls;
    private boolean interfacesTrained;

    private AotTraining(String group, Path work, String netns) {
        this.group = group;
        this.work = work;
        this.netns = netns;
    }

    static int run(String[] args) throws IOException {
        AotTraining training = new AotTraining(args[1], Path.of(args[2]), args.length > 3 ? args[3] : "");
        try {
            training.scenarios();
        } finally {
            training.clean();
        }
        if (!training.failures.isEmpty()) {
            System.err.print(training.failures);
            return 1;
        }
        System.err.println("jcni AOT training of group " + training.group + ": " + training.calls + " plugin calls");
        return 0;
    }

    private void scenarios() {
        // What Skel.main touches before dispatching, so that those classes are in the cache too: the process
        // environment, also copied entry by entry as a delegation copies it (ProcessEnvironment's entry classes were
        // otherwise read from the module image at each bridge or ptp exec).
        if (new HashMap<>(System.getenv()).isEmpty()) {
            calls += 0;
        }
        new FileOutputStream(FileDescriptor.out).getChannel();
        new FileInputStream(FileDescriptor.in).getChannel();
        PluginTable.Group trained = group(group);
        if (trained == null) {
            failures.append("AOT training: unknown group ").append(group).append('\n');
            return;
        }
        if (trained.usesNetlink()) {
            Netlink.prepareInBackground(); // as the launcher does for these plugins' calls
        }
        if (trained == PluginTable.Group.VERSION) {
            // What every launcher runs for VERSION and for the about text (no CNI_COMMAND).
            for (PluginTable plugin : PluginTable.values()) {
                call(plugin.type(), env("VERSION"), "", 0);
                call(plugin.type(), env(""), "", 0);
            }
            return;
        }
        for (PluginTable plugin : PluginTable.values()) {
            if (plugin.group() == trained) {
                // The plugin's own classes and the skel's, which every call of it loads.
                call(plugin.type(), env("VERSION"), "", 0);
                train(plugin.training());
            }
        }
    }

    private static PluginTable.Group group(String id) {
        for (PluginTable.Group g : PluginTable.Group.values()) {
            if (g.id().equals(id)) {
                return g;
            }
        }
        return null;
    }

    /** The scenarios of one {@link PluginTable.Training}; those that need a namespace run only with one. */
    private void train(PluginTable.Training training) {
        switch (training) {
            case HOST_LOCAL -> hostLocal();
            case CLUSTER_IPAM -> clusterIpam();
            case STATIC -> staticIpam();
            case DHCP -> dhcp();
            case LOOPBACK -> {
                if (!netns.isEmpty()) {
                    loopback();
                }
            }
            case BRIDGE -> {
                // Its own group: bridge's scenarios alone (the netlink group's training runs them too, as the first
                // plugin of its chains).
                if (!netns.isEmpty()) {
                    try {
                        InterfaceTraining.runBridge(work, this);
                    } catch (IOException | RuntimeException e) {
                        failures.append("AOT training of bridge failed: ").append(e).append('\n');
                    }
                }
            }
            case INTERFACES -> {
                // bandwidth, firewall (it writes nftables), ptp, sbr, tap, vrf: one run in their namespaces.
                if (!netns.isEmpty() && !interfacesTrained) {
                    interfacePlugins();
                    interfacesTrained = true;
                }
            }
            case VERSION_ONLY -> {
                // Nothing more (see PluginTable.Training.VERSION_ONLY).
            }
        }
    }

    /** bridge and ptp, in namespaces of their own (see {@link InterfaceTraining}). */
    private void interfacePlugins() {
        try {
            InterfaceTraining.run(work, this);
        } catch (IOException | RuntimeException e) {
            failures.append("AOT training of the interface plugins failed: ").append(e).append('\n');
        }
    }

    /** ADD (dual-stack, requested address, repeated), CHECK, DEL (twice), GC, STATUS and exhaustion. */
    private void hostLocal() {
        String conf = "{\"cniVersion\":\"%s\",\"name\":\"aot\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + work.resolve("host-local") + "\",\"ranges\":"
                + "[[{\"subnet\":\"10.99.0.0/30\"}],[{\"subnet\":\"fd99::/64\"}]],"
                + "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}%s}";
        call("host-local", env("ADD"), conf(conf, "1.0.0", ""), 0);
        call("host-local", env("ADD"), conf(conf, "1.0.0", ""), 0);
        call("host-local", env("CHECK"), conf(conf, "1.0.0", ""), 0);
        Map<String, String> other = env("ADD");
        other.put("CNI_CONTAINERID", "jcni-aot-other");
        call("host-local", other, conf(conf, "0.3.1", ""), 1);
        call("host-local", env("DEL"), conf(conf, "1.0.0", ""), 0);
        call("host-local", env("DEL"), conf(conf, "1.0.0", ""), 0);
        Map<String, String> requested = env("ADD");
        requested.put("CNI_ARGS", "IgnoreUnknown=1;IP=10.99.0.2");
        call("host-local", requested, conf(conf, "1.1.0", ",\"runtimeConfig\":{\"ips\":[\"fd99::9\"]}"), 0);
        call("host-local", env("GC"), conf(conf, "1.1.0", ",\"cni.dev/valid-attachments\":[]"), 0);
        call("host-local", env("STATUS"), conf(conf, "1.1.0", ""), 0);
        call("host-local", env("DEL"), conf(conf, "1.1.0", ""), 0);
    }

    /**
     * cluster-ipam against the etcd member the image build started ({@code JCNI_AOT_ETCD}, its client URL): ADD
     * (dual-stack, repeated, another container when the /30 is full, a requested address), CHECK, DEL, GC, STATUS;
     * and, always, an ADD whose etcd cannot be reached (code 11). Without an etcd only that path is trained.
     */
    private void clusterIpam() {
        String etcd = System.getenv("JCNI_AOT_ETCD");
        String unreachable = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"cluster-ipam\",\"nodeName\":\"aot\",\"subnet\":\"10.99.0.0/30\",\"etcd\":{\"endpoints\":"
                + "[\"http://127.0.0.1:1\"],\"requestTimeoutSeconds\":1}}}";
        call("cluster-ipam", env("ADD"), unreachable, 1);
        if (etcd == null || etcd.isEmpty()) {
            System.err.println("jcni AOT training: no JCNI_AOT_ETCD, cluster-ipam trained on its error path only");
            return;
        }
        String conf = "{\"cniVersion\":\"%s\",\"name\":\"aot\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"cluster-ipam\",\"nodeName\":\"aot\",\"ranges\":[[{\"subnet\":\"10.99.0.0/30\"}],"
                + "[{\"subnet\":\"fd99::/64\"}]],\"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"etcd\":{\"endpoints\":[\""
                + etcd + "\"],\"prefix\":\"/jcni-aot\"}}%s}";
        call("cluster-ipam", env("ADD"), conf(conf, "1.0.0", ""), 0);
        call("cluster-ipam", env("ADD"), conf(conf, "1.0.0", ""), 0);
        call("cluster-ipam", env("CHECK"), conf(conf, "1.0.0", ""), 0);
        Map<String, String> other = env("ADD");
        other.put("CNI_CONTAINERID", "jcni-aot-other");
        call("cluster-ipam", other, conf(conf, "0.3.1", ""), 1);
        call("cluster-ipam", env("DEL"), conf(conf, "1.0.0", ""), 0);
        call("cluster-ipam", env("DEL"), conf(conf, "1.0.0", ""), 0);
        Map<String, String> requested = env("ADD");
        requested.put("CNI_ARGS", "IgnoreUnknown=1;IP=10.99.0.2");
        call("cluster-ipam", requested, conf(conf, "1.1.0", ",\"runtimeConfig\":{\"ips\":[\"fd99::9\"]}"), 0);
        call("cluster-ipam", env("GC"), conf(conf, "1.1.0", ",\"cni.dev/valid-attachments\":[]"), 0);
        call("cluster-ipam", env("STATUS"), conf(conf, "1.1.0", ""), 0);
        call("cluster-ipam", env("DEL"), conf(conf, "1.1.0", ""), 0);
    }

    /** In the build's own namespace (root only); DEL leaves lo down as a fresh namespace has it. */
    private void loopback() {
        String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"aot\",\"type\":\"loopback\"}";
        call("loopback", env("ADD"), conf, 0);
        call("loopback", env("CHECK"), conf, 0);
        call("loopback", env("DEL"), conf, 0);
        call("loopback", env("CHECK"), conf, 1);
        Map<String, String> gone = env("DEL");
        gone.put("CNI_NETNS", work.resolve("gone").toString());
        call("loopback", gone, conf, 0);
    }

    private void staticIpam() {
        String conf = "{\"cniVersion\":\"%s\",\"name\":\"aot\",\"type\":\"bridge\",\"ipam\":{\"type\":\"static\","
                + "\"addresses\":[{\"address\":\"10.99.0.5/24\",\"gateway\":\"10.99.0.1\"},"
                + "{\"address\":\"fd99::5/64\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}],"
                + "\"dns\":{\"nameservers\":[\"10.99.0.1\"]}}%s}";
        for (String version : List.of("1.1.0", "1.0.0", "0.4.0", "0.3.1")) {
            call("static", env("ADD"), conf(conf, version, ""), 0);
        }
        call("static", env("ADD"), conf(conf, "0.2.0", ""), 0);
        String previous = ",\"prevResult\":{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.99.0.5/24\","
                + "\"gateway\":\"10.99.0.1\"},{\"address\":\"fd99::5/64\"}]}";
        call("static", env("CHECK"), conf(conf, "1.0.0", previous), 0);
        call("static", env("DEL"), conf(conf, "1.0.0", ""), 0);
        Map<String, String> withArgs = env("ADD");
        withArgs.put("CNI_ARGS", "IgnoreUnknown=1;IP=10.98.0.7/24;GATEWAY=10.98.0.1");
        call("static", withArgs, conf(conf, "1.0.0", ""), 0);
        call("static", env("ADD"), "{\"cniVersion\":\"1.0.0\"", 1);
    }

    /**
     * The dhcp plugin without its daemon (STATUS 50, ADD 11), then against a daemon running in this JVM on a socket
     * in the work dir: STATUS, DEL, CHECK without a lease, GC, and an ADD whose namespace does not exist. No DHCP
     * server is needed for these; the lease paths run in the daemon, not in the plugin's exec.
     */
    private void dhcp() {
        Path socket = work.resolve("dhcp.sock");
        String conf = "{\"cniVersion\":\"%s\",\"name\":\"aot\",\"type\":\"bridge\",\"ipam\":{\"type\":\"dhcp\","
                + "\"daemonSocketPath\":\"" + socket + "\",\"provide\":[{\"option\":\"host-name\",\"fromArg\":"
                + "\"K8S_POD_NAME\"}],\"request\":[{\"option\":\"121\"}]}%s}";
        call("dhcp", env("STATUS"), conf(conf, "1.1.0", ""), 1);
        call("dhcp", env("ADD"), conf(conf, "1.1.0", ""), 1);
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        try (LeaseManager manager = LeaseManager.start(new LeaseManager.Settings(work.resolve("dhcp-state"), "",
                false, 1000, 1000, 1000), quiet);
                DaemonServer server = DaemonServer.bind(socket, manager, quiet)) {
            Thread serving = new Thread(new Serve(server), "jcni-aot-dhcp-daemon");
            serving.setDaemon(true);
            serving.start();
            call("dhcp", env("STATUS"), conf(conf, "1.1.0", ""), 0);
            for (String version : List.of("1.1.0", "1.0.0", "0.4.0", "0.3.1")) {
                call("dhcp", env("DEL"), conf(conf, version, ""), 0);
            }
            call("dhcp", env("CHECK"), conf(conf, "1.1.0", ""), 1);
            call("dhcp", env("GC"), conf(conf, "1.1.0", ",\"cni.dev/valid-attachments\":[{\"containerID\":\"x\","
                    + "\"ifname\":\"eth0\"}]"), 0);
            call("dhcp", env("GC"), conf(conf, "1.1.0", ""), 1);
            Map<String, String> gone = env("ADD");
            gone.put("CNI_NETNS", work.resolve("gone").toString());
            call("dhcp", gone, conf(conf, "1.1.0", ""), 1);
        } catch (IOException | RuntimeException e) {
            failures.append("AOT training of dhcp failed: ").append(e).append('\n');
        }
    }

    /** The training daemon's accept loop, on a thread of its own. */
    private static final class Serve implements Runnable {
        private final DaemonServer server;

        Serve(DaemonServer server) {
            this.server = server;
        }

        @Override
        public void run() {
            server.serve();
        }
    }

    /** {@code template} with its two {@code %s} replaced (String.format would load java.util.Formatter). */
    private static String conf(String template, String version, String extra) {
        int first = template.indexOf("%s");
        int second = template.indexOf("%s", first + 2);
        return template.substring(0, first) + version + template.substring(first + 2, second) + extra
                + template.substring(second + 2);
    }

    private Map<String, String> env(String command) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", "jcni-aot-training");
        env.put("CNI_NETNS", netns.isEmpty() ? work.resolve("no-netns").toString() : netns);
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", work.toString());
        return env;
    }

    /** An expected exit status that accepts any (a call whose outcome depends on the kernel, e.g. vrf's ADD). */
    static final int ANY_STATUS = -1;

    /**
     * One plugin call through its skel, counted; an exit status other than {@code expected} (unless
     * {@link #ANY_STATUS}) is recorded as a failure with the call's stdin, stdout and stderr. Returns its stdout (the
     * result, for a chained plugin's prevResult). {@link InterfaceTraining} calls this from its namespace thread, which
     * {@link io.jcni.netlink.NetNs#call} hands back before this training reads the count or the failures again.
     */
    String call(String type, Map<String, String> env, String stdin, int expected) {
        calls++;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = PluginRegistry.skel(type).run(env, stdin.getBytes(StandardCharsets.UTF_8), out, err);
        if (status != expected && expected != ANY_STATUS) {
            failures.append("AOT training: ").append(type).append(' ').append(env.get("CNI_COMMAND"))
                    .append(" exited ").append(status).append(", expected ").append(expected).append("\n  stdin: ")
                    .append(stdin).append("\n  stdout: ").append(out.toString(StandardCharsets.UTF_8))
                    .append("\n  stderr: ").append(err.toString(StandardCharsets.UTF_8)).append('\n');
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Removes everything under the work dir (the dir itself belongs to the caller). */
    private void clean() throws IOException {
        if (Files.isDirectory(work, LinkOption.NOFOLLOW_LINKS)) {
            deleteChildren(work);
        }
    }

    private static void deleteChildren(Path dir) throws IOException {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            for (Path child : children) {
                if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                    deleteChildren(child);
                }
                Files.delete(child);
            }
        }
    }
}
