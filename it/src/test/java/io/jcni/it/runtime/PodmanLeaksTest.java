package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Podman;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * podman removes a container ({@code podman rm -f}) while a plugin's DEL fails: podman goes on, removes the container
 * and its namespace, and its libcni stopped the list's DEL at the failing plugin, so the container's reservation,
 * port mapping, masquerade and firewall rules and libcni's cache entry stay (reproduced and asserted). {@code jcni gc
 * --stale}, run in podman's mount namespace as a node would run it (the plugin works again by then), removes them
 * all and keeps the other container, still running, whole and serving through its published port. The network is the
 * one {@code podman network create} writes, with Go's trivial test plugin appended (it fails DEL while
 * the file its configuration names as {@code modeFile} says {@code error}). Once with Go's plugins (whose bridge leaves its
 * masquerade rule at a DEL without namespace, plugins#810: the one thing allowed to stay), once with jcni's.
 */
class PodmanLeaksTest {
    static final String NETWORK = "jcni-podlk";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns client;

    @BeforeEach
    void node() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("podman");
        Prerequisites.assumeCommand("runc");
        Prerequisites.assumeGoTools();
        host = TestHost.create("podlk");
        client = host.container();
        host.exec("ip", "link", "add", "up0", "type", "veth", "peer", "name", "up1", "netns", client.name())
                .requireSuccess();
        host.exec("ip", "addr", "add", "172.31.251.1/24", "dev", "up0").requireSuccess();
        host.exec("ip", "link", "set", "up0", "up").requireSuccess();
        client.exec("ip", "link", "set", "lo", "up").requireSuccess();
        client.exec("ip", "addr", "add", "172.31.251.2/24", "dev", "up1").requireSuccess();
        client.exec("ip", "link", "set", "up1", "up").requireSuccess();
    }

    @ParameterizedTest(name = "plugins from {0}")
    @ValueSource(strings = {"go", "jcni"})
    void rmWhileADelFailsLeaksUntilGcStale(String plugins) throws Exception {
        boolean jcni = plugins.equals("jcni");
        Path pluginDir = jcni ? Locations.distCniBin() : Locations.referencePlugins();
        if (jcni) {
            Prerequisites.assumeDistPlugins("bridge", "host-local", "portmap", "firewall", "tuning");
            Prerequisites.assumeJcniCli();
        } else {
            Prerequisites.assumeReferencePlugins("bridge", "host-local", "portmap", "firewall", "tuning");
        }
        Path tar = PodmanTest.image(tmp);
        try (Podman podman = Podman.start(host, tmp.resolve("podman"), List.of(pluginDir, Locations.goBin()))) {
            podman.podman("import", tar.toString(), "jcni-busybox").requireSuccess();
            podman.podman("network", "create", "--subnet", "10.89.32.0/24", NETWORK).requireSuccess();
            Path conf = podman.dir().resolve("net.d").resolve(NETWORK + ".conflist");
            ObjectNode conflist = (ObjectNode) Json.read(conf);
            Path failing = tmp.resolve("trivial-mode");
            ((ArrayNode) conflist.path("plugins")).addObject().put("type", Locations.TRIVIAL_PLUGIN_TYPE)
                    .put("modeFile", failing.toString()).put("modeOn", "DEL");
            Files.writeString(conf, conflist.toString());

            run(podman, "web1", 8081);
            run(podman, "web2", 8080);
            String id1 = podman.podman("inspect", "--format", "{{.Id}}", "web1").requireSuccess().output().strip();
            String id2 = podman.podman("inspect", "--format", "{{.Id}}", "web2").requireSuccess().output().strip();
            assertThat(podman.reservations(NETWORK)).containsExactlyInAnyOrder("10.89.32.2", "10.89.32.3");
            assertThat(PodmanTest.httpGet(client, PodmanTest.HOST, 8081)).endsWith(PodmanTest.PAGE);

            // The DEL fails while a file says so, not through podman rm's environment: the DEL may come from web1's
            // conmon (its exit command, `podman container cleanup`, in the environment of `podman run`) as well as
            // from `podman rm`, whichever takes the container's lock first, and both use the configuration cached at
            // ADD. Once rm has returned, web1 is gone from podman's database and no later cleanup acts on it.
            Files.writeString(failing, "error");
            Podman.Result rm = podman.podman("rm", "-f", "-t", "0", "web1");
            Files.delete(failing);
            assertThat(podman.podman("ps", "-a", "--format", "{{.Names}}").requireSuccess().output().strip())
                    .as("podman removed web1 anyway: " + rm.output()).isEqualTo("web2");
            assertThat(host.kernel().links()).as("its namespace went, and its veth with it")
                    .filteredOn(l -> l.name().startsWith("veth")).hasSize(1);
            assertThat(podman.reservations(NETWORK)).as("the leak").contains("10.89.32.2");
            assertThat(ruleset()).as("the leak").contains("10.89.32.2").contains("8081");
            assertThat(cacheEntries(podman)).as("the leak").anyMatch(e -> e.contains(id1));

            Podman.Result gc = podman.shell(Locations.distJcni() + " gc --stale --cache-dir /var/lib/cni --conf-dir "
                    + podman.dir().resolve("net.d") + " --cni-path " + pluginDir + ":" + Locations.goBin());

            assertThat(gc.exit()).as(gc.output()).isZero();
            System.out.println(plugins + ": gc --stale\n" + gc.output());
            assertThat(gc.output()).contains("removed " + NETWORK + " " + id1 + "/eth0 netns -: sandbox ")
                    .containsPattern("kept " + NETWORK + " " + id2 + "/eth0 netns -: sandbox /run/netns/[^:]+: a "
                            + "namespace");
            assertThat(podman.reservations(NETWORK)).containsExactly("10.89.32.3");
            assertThat(cacheEntries(podman)).noneMatch(e -> e.contains(id1)).anyMatch(e -> e.contains(id2));
            List<String> left = ruleset().lines().filter(l -> l.contains("10.89.32.2") || l.contains("8081"))
                    .toList();
            if (jcni) {
                assertThat(left).as("web1's rules").isEmpty();
            } else {
                assertThat(left).as("web1's rules but Go's masquerade").allMatch(l -> l.contains("ip saddr 10.89.32.2 ")
                        && l.contains("jump CNI-"));
            }
            assertThat(PodmanTest.httpGet(client, PodmanTest.HOST, 8080)).as("web2 serves").endsWith(PodmanTest.PAGE);
            assertThat(PodmanTest.httpGet(client, PodmanTest.HOST, 8081)).isEmpty();

            podman.podman("rm", "-f", "-t", "0", "web2").requireSuccess();
            assertThat(podman.reservations(NETWORK)).isEmpty();
            assertThat(cacheEntries(podman)).isEmpty();
            podman.podman("network", "rm", NETWORK).requireSuccess();
            podman.podman("rmi", "jcni-busybox").requireSuccess();
        }
    }

    static void run(Podman podman, String name, int port) {
        podman.podman("run", "-d", "--name", name, "--network", NETWORK, "-p", port + ":80", "--ulimit",
                "nofile=20000:20000", "--ulimit", "nproc=4096:4096", "jcni-busybox", "/bin/httpd", "-f", "-p", "80",
                "-h", "/www").requireSuccess();
    }

    String ruleset() {
        return host.exec("nft", "list", "ruleset").requireSuccess().stdout();
    }

    static List<String> cacheEntries(Podman podman) throws Exception {
        Path results = podman.dir().resolve("var-lib-cni/results");
        if (!Files.isDirectory(results)) {
            return List.of();
        }
        try (var files = Files.list(results)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }
}
