package io.jcni.it.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.IpLink;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * containerd's command-line client runs a container on the example network: {@code ctr run --rm --cni} (go-cni in
 * ctr's own process, on the conflist containerd rendered from the pod CIDR). The container's address (as it prints
 * it, in its namespace, reserved), its web page from the node, and after its task is killed (ctr then removes the
 * network with the task's namespace already gone: go-cni sends {@code CNI_NETNS=""}) no reservation, cache entry,
 * veth or rule left. Go's bridge 1.1.1 leaves its ipMasq rule behind on such a DEL (containernetworking/plugins#810):
 * the control asserts exactly that leftover, which also shows that the check sees one; jcni's must leave nothing.
 * Once per {@link Side}.
 */
class ContainerdCtrRunTest {
    private static final String TAG = "ctrrun";
    /** ctr's go-cni runs the network's plugins only (no loopback, no capability arguments). */
    private static final List<String> CTR_TYPES = List.of("bridge", "portmap", "bandwidth");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Side.class)
    void ctrRunCniAttachesServesAndDetachesAfterItsTaskIsGone(Side side) throws Exception {
        try (Node node = Node.start(side, tmp, TAG, UnaryOperator.identity())) {
            node.podCidr();
            CtrRun run = CtrRun.start(node, "web", tmp.resolve("ctr-run.log"));
            String address = run.address();
            String ip = address.substring(0, address.indexOf('/'));
            assertThat(IpPrefix.parse(Node.POD_CIDR, "pod CIDR").contains(IpText.parseAddress(ip, "address")))
                    .as("%s in the pod CIDR", address).isTrue();
            Path netns = Path.of("/proc", String.valueOf(run.pid()), "ns", "net");
            assertThat(Node.addresses(netns, "eth0")).containsExactly(address);
            assertThat(node.reservations()).containsExactly(ip);
            assertThat(node.cacheEntries()).containsExactly("containerd-net-default-web-eth0");
            assertThat(node.links("veth")).hasSize(1);
            assertThat(Node.awaitPage(node.host.netns().path(), IpText.parseAddress(ip, "address"), 80))
                    .as("node -> container").endsWith(Node.PAGE);
            ContainerdCriTest.assertPluginsRan(node, run.output(), "ADD", CTR_TYPES);

            int status = run.kill();
            String output = run.output();
            assertThat(output).as("ctr run (exit status %d)", status).doesNotContain("failed");
            assertThat(node.reservations()).as("no reservation").isEmpty();
            assertThat(node.cacheEntries()).as("no cache entry").isEmpty();
            assertThat(node.host.kernel().links()).extracting(IpLink::name).as("no veth")
                    .containsExactlyInAnyOrder("lo", "up0", "cni0");
            ContainerdCriTest.assertPluginsRan(node, output, "DEL", CTR_TYPES);
            String ruleset = node.ruleset();
            if (side == Side.GO) {
                assertThat(ruleset).as("Go's bridge 1.1.1 keeps its ipMasq rule on a DEL without netns (#810)")
                        .contains("ip saddr " + ip + " ").contains("masquerade");
            } else {
                assertThat(ruleset).as("no rule of the container").doesNotContain(ip).doesNotContain("default-web");
            }
            assertThat(node.containerd.ctr("-n", "default", "containers", "ls", "-q").requireSuccess().stdout())
                    .as("ctr run --rm removed its container").isBlank();
        }
    }
}
