package io.jcni.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.launcher.Launcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start-up budget of an exec'd plugin, checked on what actually runs: static IPAM and host-local (ADD, CHECK, DEL,
 * GC, VERSION) are exec'd as a runtime execs them, in a JVM that traces every call site it links at run time
 * ({@code java.lang.invoke.MethodHandle.TRACE_METHOD_LINKAGE}), and no call site of jcni's code may be among them: each
 * is an invokedynamic bootstrap (a lambda, an indy string concatenation, a pattern switch, or a record's generated
 * {@code equals}/{@code hashCode}/{@code toString} through {@code ObjectMethods}) that costs milliseconds per exec.
 * Measured before this test existed: host-local's {@code IpAddress.equals} bootstrap cost about 10 ms of each ADD.
 * {@link StartupPathTest} scans the bytecode for the first three; only this test sees which record methods are called.
 *
 * <p>The JDK's own call sites (FFM's linker uses pattern switches when host-local takes its {@code flock}) are linked
 * too and are the positive control: they prove the trace works, so an empty jcni list is not vacuous.
 */
class ExecPathLinkageTest {
    private static final String MAIN = "io.jcni.plugins/" + Launcher.class.getName();

    @TempDir
    Path work;

    /** Runs {@code type} with {@code command}; returns the call sites it linked, as "caller" strings. */
    private List<String> linkedCallSites(String type, String command, String config) throws Exception {
        String modulePath = System.getProperty("jdk.module.path");
        assertThat(modulePath).as("tests run on the module path").isNotBlank();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "--module-path", modulePath,
                "--enable-native-access=io.jcni.netlink", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.lang.invoke.MethodHandle.TRACE_METHOD_LINKAGE=true", "-m", MAIN, type);
        Map<String, String> env = pb.environment();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", "linkage-1");
        env.put("CNI_NETNS", work.resolve("no-netns").toString());
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", work.toString());
        Path stdin = work.resolve("stdin.json");
        Files.writeString(stdin, config);
        pb.redirectInput(stdin.toFile());
        Path out = work.resolve("out.txt");
        pb.redirectOutput(out.toFile());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s %s printed: %s", type, command, output).isZero();
        List<String> callers = new ArrayList<>();
        for (String line : output.split("\n")) {
            // "linkCallSite <module>/<class>.<method>(<file>) <bootstrap>..." ; target/linkage lines follow each.
            if (line.startsWith("linkCallSite ") && !line.startsWith("linkCallSite target")
                    && !line.startsWith("linkCallSite linkage")) {
                callers.add(line.substring("linkCallSite ".length(), line.indexOf(' ', "linkCallSite ".length())));
            }
        }
        return callers;
    }

    private static List<String> jcni(List<String> callers) {
        return callers.stream().filter(c -> c.startsWith("io.jcni.")).toList();
    }

    @Test
    void hostLocalLinksNoCallSiteOfItsOwnInAnyVerb() throws Exception {
        String config = "{\"cniVersion\":\"1.1.0\",\"name\":\"linkage\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + work.resolve("data") + "\",\"ranges\":[[{\"subnet\":"
                + "\"10.77.0.0/24\"}],[{\"subnet\":\"fd77::/64\"}]],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}";
        List<String> add = linkedCallSites("host-local", "ADD", config);
        assertThat(add).as("positive control: the JDK's FFM linker links pattern switches for flock")
                .anyMatch(c -> c.startsWith("java.base/jdk.internal.foreign"));
        assertThat(jcni(add)).as("ADD").isEmpty();
        String prev = config.replace("\"ipam\"", "\"prevResult\":{\"cniVersion\":\"1.1.0\",\"ips\":[{\"address\":"
                + "\"10.77.0.2/24\",\"gateway\":\"10.77.0.1\"},{\"address\":\"fd77::2/64\",\"gateway\":\"fd77::1\"}]},"
                + "\"ipam\"");
        assertThat(jcni(linkedCallSites("host-local", "CHECK", prev))).as("CHECK").isEmpty();
        String gc = config.replace("\"ipam\"", "\"cni.dev/valid-attachments\":[{\"containerID\":\"other\","
                + "\"ifname\":\"eth0\"}],\"ipam\"");
        assertThat(jcni(linkedCallSites("host-local", "GC", gc))).as("GC").isEmpty();
        assertThat(jcni(linkedCallSites("host-local", "DEL", config))).as("DEL").isEmpty();
        assertThat(jcni(linkedCallSites("host-local", "VERSION", ""))).as("VERSION").isEmpty();
        try (var files = Files.list(work.resolve("data").resolve("linkage"))) {
            assertThat(files.map(f -> f.getFileName().toString()).toList()).as("GC released the ADD's addresses")
                    .doesNotContain("10.77.0.2", "fd77::2");
        }
    }

    /** cluster-ipam's verbs against a real etcd member (its exec path: sockets, the JSON gateway, the store). */
    @Test
    void clusterIpamLinksNoCallSiteOfItsOwnInAnyVerb() throws Exception {
        try (var etcd = io.jcni.plugins.internal.ipam.cluster.EtcdCluster.start(work.resolve("etcd"), 1)) {
            String config = "{\"cniVersion\":\"1.1.0\",\"name\":\"linkage\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                    + "\"cluster-ipam\",\"nodeName\":\"n1\",\"ranges\":[[{\"subnet\":\"10.77.0.0/24\"}],[{\"subnet\":"
                    + "\"fd77::/64\"}]],\"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"etcd\":{\"endpoints\":["
                    + etcd.endpointsJson() + "]}}}";
            assertThat(jcni(linkedCallSites("cluster-ipam", "ADD", config))).as("ADD").isEmpty();
            assertThat(jcni(linkedCallSites("cluster-ipam", "ADD", config))).as("repeated ADD").isEmpty();
            assertThat(jcni(linkedCallSites("cluster-ipam", "CHECK", config))).as("CHECK").isEmpty();
            String gc = config.replace("\"ipam\"", "\"cni.dev/valid-attachments\":[{\"containerID\":\"other\","
                    + "\"ifname\":\"eth0\"}],\"ipam\"");
            assertThat(jcni(linkedCallSites("cluster-ipam", "GC", gc))).as("GC").isEmpty();
            assertThat(jcni(linkedCallSites("cluster-ipam", "DEL", config))).as("DEL").isEmpty();
            assertThat(jcni(linkedCallSites("cluster-ipam", "STATUS", config))).as("STATUS").isEmpty();
            assertThat(etcd.keys("/jcni/ipam/linkage/ip/")).as("GC released the ADD's addresses").isEmpty();
        }
    }

    @Test
    void staticIpamLinksNoCallSiteOfItsOwn() throws Exception {
        String config = """
                {"cniVersion":"1.0.0","name":"linkage","type":"bridge","ipam":{"type":\
                "static","addresses":[{"address":"10.99.0.5/24","gateway":"10.99.0.1"}],\
                "routes":[{"dst":"0.0.0.0/0"}],"dns":{"nameservers":["10.99.0.1"]}}}""";
        assertThat(jcni(linkedCallSites("static", "ADD", config))).isEmpty();
    }
}
