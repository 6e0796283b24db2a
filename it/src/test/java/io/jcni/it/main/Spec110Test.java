package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.it.support.IpLink;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniVersion;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Protocol 1.1.0 (which Go libcni 1.1.2 and Debian's plugins do not speak) through jcni's runtime with jcni's
 * launchers only: bridge and ptp with the static IPAM plugin (delegated to in-process, as the launcher is jcni's), the
 * full ADD/CHECK/STATUS/GC/DEL cycle; GC and STATUS are the IPAM plugin's answers. The runtime lives in this JVM; the
 * plugins it execs run in the test host.
 */
class Spec110Test {
    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;

    @BeforeEach
    void world() {
        Prerequisites.assumeDistPlugins("bridge", "ptp", "static");
        world = new NetWorld(tmp);
    }

    CniRuntime runtime(ByteArrayOutputStream stderr) {
        return CniRuntime.create(world.runtimeOptions(List.of(Locations.distCniBin()))
                .withCacheDir(tmp.resolve("cache")).withStderr(stderr)
                .withEnvironment(java.util.Map.of("JCNI_DEBUG", "1", "PATH", "/usr/sbin:/usr/bin:/sbin:/bin")));
    }

    static NetworkConfigList list(String type, String keys) throws Exception {
        return CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.1.0\",\"name\":\"jcni-net-110\",\"plugins\":[{"
                + "\"type\":\"" + type + "\"" + keys + ",\"ipam\":{\"type\":\"static\",\"addresses\":["
                + "{\"address\":\"10.216.50.7/24\",\"gateway\":\"10.216.50.1\"},{\"address\":\"fd16:50::7/64\","
                + "\"gateway\":\"fd16:50::1\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}]}")
                .getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bridge", "ptp"})
    void addCheckStatusGcDelAtVersion110(String type) throws Exception {
        TestNetns netns = world.netns();
        String keys = type.equals("bridge") ? ",\"bridge\":\"" + world.bridge() + "\",\"isGateway\":true" : "";
        NetworkConfigList list = list(type, keys);
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        CniRuntime runtime = runtime(stderr);
        RuntimeConf rt = new RuntimeConf("ctr-110-" + type, netns.path().toString(), "eth0");

        Result result = (Result) runtime.addNetworkList(list, rt);
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_1_0);
        assertThat(result.ips()).extracting(ip -> ip.address().toString())
                .containsExactly("10.216.50.7/24", "fd16:50::7/64");
        assertThat(stderr.toString(StandardCharsets.UTF_8)).as("static ran in the plugin's JVM")
                .contains("static: ADD in-process");
        assertThat(netns.kernel().addresses("eth0")).extracting(a -> a.cidr()).contains("10.216.50.7/24");
        assertThat(result.interfaces()).filteredOn(i -> i.sandbox() == null || i.sandbox().isEmpty())
                .as("the host side is in the test host").isNotEmpty()
                .allSatisfy(i -> assertThat(world.host.kernel().link(i.name())).isPresent());

        runtime.checkNetworkList(list, rt);
        runtime.statusNetworkList(list);
        runtime.gcNetworkList(list, List.of(new GcAttachment(rt.containerId(), "eth0")));
        assertThat(stderr.toString(StandardCharsets.UTF_8)).contains(type + ": GC exec")
                .contains("static: GC in-process").contains("static: STATUS in-process");
        runtime.delNetworkList(list, rt);
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        runtime.delNetworkList(list, rt);
    }

    @Test
    void statusFailsWithTheIpamPluginsErrorWhenIpamIsMissing() throws Exception {
        NetworkConfigList list = CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.1.0\",\"name\":\"jcni-net-110\","
                + "\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"" + world.bridge() + "\",\"ipam\":{\"type\":"
                + "\"jcni-net-no-such-ipam\"}}]}").getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> runtime(new ByteArrayOutputStream()).statusNetworkList(list))
                .isInstanceOf(CniRuntimeException.class).hasMessageContaining("jcni-net-no-such-ipam");
    }
}
