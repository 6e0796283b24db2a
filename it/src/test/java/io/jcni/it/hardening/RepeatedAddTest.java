package io.jcni.it.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.it.support.Conflists;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A failed ADD must never destroy what existed before it. The runtime's rollback used to DEL the whole list, so a
 * second ADD of a working attachment (which fails: "eth0 already exists") deleted that attachment's eth0, its
 * reservation and its cache entry, and an ADD into a namespace that already had an eth0 no plugin made deleted that
 * eth0 with its address. With Go's plugins as with jcni's: it was the runtime's doing. The plugins run in a test
 * host; the container's state is read back with {@code ip -j}.
 */
class RepeatedAddTest {
    private static final String TAG = "radd";
    private static final String NETWORK = "jcni-radd";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns netns;
    private String bridge;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        host = TestHost.create(TAG);
        netns = host.container();
        bridge = Names.link(TAG);
    }

    private List<Path> cniPath(String plugins) {
        if (plugins.equals("go")) {
            Prerequisites.assumeReferencePlugins("bridge", "host-local");
            return host.runtimeCniPath(tmp.resolve("host-bin"), List.of(Locations.referencePlugins()));
        }
        Prerequisites.assumeDistPlugins("bridge", "host-local");
        return host.runtimeCniPath(tmp.resolve("host-bin"), List.of(Locations.distCniBin()));
    }

    private CniRuntime runtime(String plugins) {
        return CniRuntime.create(CniRuntime.Options.of(cniPath(plugins)).withCacheDir(tmp.resolve("cache")));
    }

    private NetworkConfigList list() throws Exception {
        return CniJson.decodeNetworkConfigList(Conflists.list("1.0.0", NETWORK,
                Conflists.bridge(bridge, "", Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.216.50.0/24"))))
                .getBytes(StandardCharsets.UTF_8));
    }

    private List<String> reservations() {
        return HostLocalFiles.reservations(tmp.resolve("ipam"), NETWORK);
    }

    private List<String> eth0Addresses() {
        return netns.kernel().addresses("eth0").stream().filter(a -> a.family().equals("inet"))
                .map(IpAddress::cidr).toList();
    }

    private Path cacheEntry(RuntimeConf rt) {
        return tmp.resolve("cache/results/" + NETWORK + "-" + rt.containerId() + "-" + rt.ifName());
    }

    @ParameterizedTest(name = "{0} plugins")
    @ValueSource(strings = {"go", "jcni"})
    void aRepeatedAddIsRefusedAndTheWorkingAttachmentSurvivesIt(String plugins) throws Exception {
        CniRuntime runtime = runtime(plugins);
        RuntimeConf rt = new RuntimeConf("radd-" + plugins, netns.path().toString(), "eth0");
        runtime.addNetworkList(list(), rt);
        List<String> addresses = eth0Addresses();
        byte[] cached = Files.readAllBytes(cacheEntry(rt));
        assertThat(addresses).containsExactly("10.216.50.2/24");
        assertThat(reservations()).containsExactly("10.216.50.2");

        assertThatThrownBy(() -> runtime.addNetworkList(list(), rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
                    assertThat(e.getMessage()).endsWith("is already added");
                });

        assertThat(eth0Addresses()).as("eth0 and its address").isEqualTo(addresses);
        assertThat(reservations()).as("the reservation").containsExactly("10.216.50.2");
        assertThat(Files.readAllBytes(cacheEntry(rt))).as("the cache entry").isEqualTo(cached);

        runtime.delNetworkList(list(), rt);
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(reservations()).isEmpty();
    }

    @ParameterizedTest(name = "{0} plugins")
    @ValueSource(strings = {"go", "jcni"})
    void anInterfaceNoPluginMadeSurvivesTheRollbackOfAnAddThatFoundIt(String plugins) throws Exception {
        CniRuntime runtime = runtime(plugins);
        String peer = Names.link(TAG);
        host.exec("ip", "link", "add", peer, "type", "veth", "peer", "name", "eth0", "netns", netns.name())
                .requireSuccess();
        netns.exec("ip", "addr", "add", "192.0.2.5/24", "dev", "eth0").requireSuccess();
        RuntimeConf rt = new RuntimeConf("radd-own-" + plugins, netns.path().toString(), "eth0");

        assertThatThrownBy(() -> runtime.addNetworkList(list(), rt)).isInstanceOf(CniRuntimeException.class);

        assertThat(eth0Addresses()).as("the admin's eth0 and its address").containsExactly("192.0.2.5/24");
        assertThat(reservations()).as("nothing of the failed ADD is left").isEmpty();
        assertThat(cacheEntry(rt)).doesNotExist();
    }
}
