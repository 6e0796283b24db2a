package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@code jcni} CLI as a process: cnitool's environment and container ID against the Go reference plugins in a real
 * namespace (the CLI running in a test host), exit statuses, and two processes on one attachment being serialized by
 * the cache directory's lock. Each runs as the module's main class on this JVM's module path and as
 * {@code dist/bin/jcni}.
 */
class JcniCliProcessTest {
    private static final String TAG = "rt";

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(JcniCommand.class)
    void addCheckDelWithCnitoolsEnvironment(JcniCommand jcni) throws Exception {
        jcni.prefix();
        Prerequisites.assumeRoot();
        Prerequisites.assumeReferencePlugins("bridge", "host-local");
        String bridge = Names.link(TAG);
        Path confDir = Files.createDirectories(tmp.resolve("net.d"));
        Files.writeString(confDir.resolve("10-cli.conflist"), Conflists.list("1.0.0", "jcni-rt-cli",
                Conflists.bridge(bridge, "", Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.217.5.0/24")))));
        Map<String, String> env = Map.of("NETCONFPATH", confDir.toString(), "CNI_PATH",
                Locations.referencePlugins().toString(), "CNI_IFNAME", "net1", "CNI_ARGS", "IgnoreUnknown=1");
        String cache = tmp.resolve("cache").toString();
        try (TestHost host = TestHost.create(TAG)) {
            TestNetns netns = host.container();
            String ns = netns.path().toString();

            ProcessResult add = jcni.run(host, env, "add", "jcni-rt-cli", ns, "--cache-dir", cache);

            assertThat(add.exitCode()).as(add.describe()).isZero();
            JsonNode result = Json.parse(add.stdout());
            assertThat(result.path("ips").get(0).path("address").asText()).isEqualTo("10.217.5.2/24");
            assertThat(netns.kernel().addresses("net1")).extracting(IpAddress::cidr).contains("10.217.5.2/24");
            assertThat(host.kernel().link(bridge)).as("the bridge, in the CLI's host").isPresent();
            String containerId = Attachment.cnitoolContainerId(netns.path());
            assertThat(tmp.resolve("cache/results/jcni-rt-cli-" + containerId + "-net1")).exists();
            assertThat(Files.readString(tmp.resolve("ipam/jcni-rt-cli/10.217.5.2")))
                    .isEqualTo(containerId + "\r\nnet1");

            ProcessResult check = jcni.run(host, env, "check", "jcni-rt-cli", ns, "--cache-dir", cache);
            assertThat(check.exitCode()).as(check.describe()).isZero();
            assertThat(check.stdout()).isEmpty();
            ProcessResult del = jcni.run(host, env, "del", "jcni-rt-cli", ns, "--cache-dir", cache);
            assertThat(del.exitCode()).as(del.describe()).isZero();
            assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
            assertThat(jcni.run(host, env, "del", "jcni-rt-cli", ns, "--cache-dir", cache).exitCode()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(JcniCommand.class)
    void failuresExitWithStatusAndAMessageAPersonCanActOn(JcniCommand jcni) throws Exception {
        jcni.prefix();
        Prerequisites.assumeGoTools();
        Path confDir = Files.createDirectories(tmp.resolve("net.d"));
        Files.writeString(confDir.resolve("10.conflist"), """
                {"cniVersion":"1.0.0","name":"jcni-rt-clifail","plugins":[{"type":"trivial-plugin","mode":"error",\
                "errorCode":11}]}""");
        Map<String, String> env = Map.of("NETCONFPATH", confDir.toString(), "CNI_PATH", Locations.goBin().toString());
        String cache = tmp.resolve("cache").toString();

        ProcessResult failed = jcni.run(env, "add", "jcni-rt-clifail", "/var/run/netns/jcni-rt-absent", "--cache-dir",
                cache);
        assertThat(failed.exitCode()).isEqualTo(1);
        assertThat(failed.stdout()).isEmpty();
        assertThat(failed.stderr()).isEqualTo("""
                jcni: plugin type="trivial-plugin" failed (add): trivial-plugin: \
                failure requested; mode=error command=ADD\njcni: CNI error code 11 (Try again later)\n""");

        ProcessResult missing = jcni.run(env, "add", "nope", "/var/run/netns/x", "--cache-dir", cache);
        assertThat(missing.exitCode()).isEqualTo(3);
        assertThat(missing.stderr()).isEqualTo("jcni: no net configuration with name \"nope\" in " + confDir + "\n");

        ProcessResult usage = jcni.run(env, "add");
        assertThat(usage.exitCode()).isEqualTo(2);
        assertThat(usage.stderr()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    /**
     * Two jcni processes on one attachment: the ADD's first plugin sleeps while the DEL process starts; the DEL's
     * plugins must not run before the ADD has finished. Without the cross-process lock the DEL's records would land
     * inside the ADD's sleep. The order is checked from the plugin's own records, not from timing.
     */
    @ParameterizedTest
    @EnumSource(JcniCommand.class)
    void twoProcessesOnOneAttachmentAreSerialized(JcniCommand jcni) throws Exception {
        jcni.prefix();
        Prerequisites.assumeGoTools();
        Path record = tmp.resolve("calls.jsonl");
        Path confDir = Files.createDirectories(tmp.resolve("net.d"));
        Files.writeString(confDir.resolve("10.conflist"), """
                {"cniVersion":"1.0.0","name":"jcni-rt-lock","plugins":[\
                {"type":"trivial-plugin","tag":"first","sleepMs":2000,"recordFile":"%s"},\
                {"type":"trivial-plugin","tag":"second","recordFile":"%s"}]}""".formatted(record, record));
        Map<String, String> env = new HashMap<>(Map.of("NETCONFPATH", confDir.toString(), "CNI_PATH",
                Locations.goBin().toString()));
        String[] common = {"--container-id", "lock-ctr", "--cache-dir", tmp.resolve("cache").toString()};

        Process add = jcni.start(env, tmp, "add", concat(new String[] {"add", "jcni-rt-lock", "/var/run/netns/x"},
                common));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Records.read(record).isEmpty()) {
            assertThat(System.nanoTime()).as("the ADD's first plugin started").isLessThan(deadline);
            assertThat(add.isAlive() || !Records.read(record).isEmpty()).as("the ADD process is running").isTrue();
            Thread.sleep(10);
        }
        Process del = jcni.start(env, tmp, "del", concat(new String[] {"del", "jcni-rt-lock", "/var/run/netns/x"},
                common));
        assertThat(add.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(del.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(add.exitValue()).as(Files.readString(tmp.resolve("add.err"))).isZero();
        assertThat(del.exitValue()).as(Files.readString(tmp.resolve("del.err"))).isZero();

        List<String> calls = Records.read(record).stream()
                .map(c -> c.path("command").asText() + " " + c.path("config").path("tag").asText()).toList();
        assertThat(calls).containsExactly("ADD first", "ADD second", "DEL second", "DEL first");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
