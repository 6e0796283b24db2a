package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.it.support.Conflists;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An ADD that fails in the middle of a chain (Go bridge + host-local succeed, then the trivial plugin fails) leaves
 * nothing behind: jcni deletes the whole list in reverse, so the container link, the host veth, the IP reservation
 * and the cache entry are all gone, and the caller gets the failing plugin's error. libcni does not clean up; the
 * last case shows what is left then. The plugins run in a test host, where the bridge's ports are counted.
 */
class AddFailureLeavesNothingTest {
    private static final String TAG = "rt";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns netns;
    private String bridge;
    private List<Path> cniPath;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeReferencePlugins("bridge", "host-local");
        host = TestHost.create(TAG);
        netns = host.container();
        bridge = Names.link(TAG);
        cniPath = host.runtimeCniPath(tmp.resolve("host-bin"), List.of(Locations.referencePlugins(),
                Locations.goBin()));
    }

    private NetworkConfigList failingChain(String mode) throws Exception {
        return CniJson.decodeNetworkConfigList(Conflists.list("1.0.0", "jcni-rt-fail",
                Conflists.bridge(bridge, "", Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.216.4.0/24"))),
                "{\"type\":\"trivial-plugin\",\"mode\":\"" + mode + "\",\"modeOn\":\"ADD\"}")
                .getBytes(StandardCharsets.UTF_8));
    }

    private CniRuntime runtime(boolean cleanup) {
        return CniRuntime.create(CniRuntime.Options.of(cniPath).withCacheDir(tmp.resolve("cache"))
                .withDeleteOnAddFailure(cleanup));
    }

    private List<String> bridgePorts() {
        return host.kernel().links().stream().filter(l -> bridge.equals(l.master())).map(IpLink::name).toList();
    }

    private List<String> reservations() {
        return HostLocalFiles.reservations(tmp.resolve("ipam"), "jcni-rt-fail");
    }

    @ParameterizedTest(name = "trivial-plugin mode {0}")
    @ValueSource(strings = {"error", "crash", "garbage"})
    void aFailedAddIsCleanedUpCompletely(String mode) throws Exception {
        RuntimeConf rt = new RuntimeConf("rt-fail-" + mode, netns.path().toString(), "eth0");

        assertThatThrownBy(() -> runtime(true).addNetworkList(failingChain(mode), rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.pluginType()).isEqualTo("trivial-plugin");
                    assertThat(e.getMessage()).startsWith("plugin type=\"trivial-plugin\" failed (add): ");
                    assertThat(e.getSuppressed()).as("the cleanup succeeded").isEmpty();
                    if (mode.equals("error")) {
                        assertThat(e.code()).isEqualTo(100);
                        assertThat(e.error().msg()).isEqualTo("trivial-plugin: failure requested");
                    }
                });

        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(bridgePorts()).as("veths left on the bridge").isEmpty();
        assertThat(reservations()).as("host-local reservations").isEmpty();
        Path results = tmp.resolve("cache/results");
        assertThat(!Files.isDirectory(results) || Files.list(results).findAny().isEmpty()).isTrue();
    }

    @Test
    void withoutCleanupAsInLibcniTheFirstPluginsWorkIsLeftForTheCallersDel() throws Exception {
        RuntimeConf rt = new RuntimeConf("rt-leak", netns.path().toString(), "eth0");
        NetworkConfigList list = failingChain("error");

        assertThatThrownBy(() -> runtime(false).addNetworkList(list, rt)).isInstanceOf(CniRuntimeException.class);
        assertThat(netns.kernel().link("eth0")).isPresent();
        assertThat(bridgePorts()).hasSize(1);
        assertThat(reservations()).containsExactly("10.216.4.2");

        runtime(false).delNetworkList(list, rt);
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(bridgePorts()).isEmpty();
        assertThat(reservations()).isEmpty();
    }
}
