package io.jcni.plugins.internal.pkg.ip;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link VethPair} between two fresh namespaces. */
class VethPairTest {
    private Worlds w;

    @BeforeEach
    void world() throws Exception {
        w = Worlds.create();
    }

    @AfterEach
    void close() {
        if (w != null) {
            w.close();
        }
    }

    @Test
    void randomNamesLookLikeGos() throws Exception {
        for (int i = 0; i < 50; i++) {
            assertThat(VethPair.randomName()).matches("veth[0-9a-f]{8}");
        }
        assertThat(VethPair.randomName()).isNotEqualTo(VethPair.randomName());
    }

    @Test
    void createsThePeerDirectlyInTheContainerUnderIfnameWithMtuAndMac() throws Exception {
        AtomicReference<VethPair> made = new AtomicReference<>();
        MacAddress mac = MacAddress.parse("0a:58:0a:01:02:03");
        Worlds.add(r -> {
            made.set(VethPair.create(w.host, w.container, "eth7", 1400, mac, r.rollback()));
            return null;
        }).ok();
        VethPair pair = made.get();

        Link host = w.host.nl().link(pair.host().name());
        assertThat(host.name()).matches("veth[0-9a-f]{8}");
        assertThat(host.info()).isInstanceOf(LinkInfo.Veth.class);
        assertThat(host.isUp()).isTrue();
        assertThat(host.mtu()).isEqualTo(1400);
        assertThat(Sysctl.read(w.hostNs, "net/ipv6/conf/" + host.name() + "/accept_ra")).isEqualTo("0");

        Link eth7 = w.container.nl().link("eth7");
        assertThat(eth7.address()).isEqualTo(mac);
        assertThat(eth7.mtu()).isEqualTo(1400);
        assertThat(eth7.isUp()).as("the plugin configures the container end").isFalse();
        assertThat(eth7.parentIndex()).as("peers of each other").isEqualTo(host.index());
        assertThat(host.parentIndex()).isEqualTo(eth7.index());
        assertThat(pair.container().index()).isEqualTo(eth7.index());
        assertThat(w.host.nl().findLink("eth7")).as("never visible on the host").isEmpty();
    }

    @Test
    void aFailedAddDeletesBothEnds() throws Exception {
        AtomicReference<String> hostName = new AtomicReference<>();
        CniError error = Worlds.add(r -> {
            hostName.set(VethPair.create(w.host, w.container, "eth0", 0, null, r.rollback()).host().name());
            throw new io.jcni.spec.CniException(CniError.INTERNAL, "later step failed");
        }).error();
        assertThat(error.msg()).isEqualTo("later step failed");
        assertThat(w.host.nl().findLink(hostName.get())).isEmpty();
        assertThat(w.container.nl().findLink("eth0")).isEmpty();
    }

    @Test
    void anExistingContainerInterfaceIsNamedInTheError() throws Exception {
        w.container.nl().addVeth(LinkAttrs.named("eth0"), LinkAttrs.named("other0"));
        int hostLinks = w.host.nl().links().size();
        PluginCall.Outcome outcome = Worlds.add(r -> {
            VethPair.create(w.host, w.container, "eth0", 0, null, r.rollback());
            return null;
        });
        CniError error = outcome.error();
        assertThat(error.code()).isEqualTo(CniError.INTERNAL);
        assertThat(error.msg()).isEqualTo("container veth name provided (eth0) already exists");
        assertThat(error.details()).contains("EEXIST");
        assertThat(w.host.nl().links()).hasSize(hostLinks);
    }

    // ---- DEL without the container's namespace: CNI_NETNS "" while a process still holds the namespace

    /** A pair between the worlds' host and a container namespace that has no path, as one nobody can name any more. */
    private VethPair pair() {
        AtomicReference<VethPair> made = new AtomicReference<>();
        Worlds.add(r -> {
            made.set(VethPair.create(w.host, w.container, "eth0", 0, null, r.rollback()));
            return null;
        }).ok();
        return made.get();
    }

    /** prevResult as bridge or ptp record it: the host end without a sandbox (with {@code mac}), the container's. */
    private static String prevResult(String hostEnd, String mac) {
        return "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"" + hostEnd + "\",\"mac\":\"" + mac
                + "\"},{\"name\":\"eth0\",\"sandbox\":\"/var/run/netns/gone\"}]}";
    }

    /** DEL with {@code CNI_NETNS=""} in the worlds' host, whose handler is {@link VethPair#deleteOrphanedHostEnd}. */
    private PluginCall.Outcome delWithoutNetns(String prevResult, VethPair.HostEnd ours) {
        CniPlugin plugin = new CniPlugin() {
            @Override
            public CniResult add(CniRequest request) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void del(CniRequest request) throws CniException {
                VethPair.deleteOrphanedHostEnd(request, ours);
            }

            @Override
            public void check(CniRequest request) {
            }
        };
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"t\""
                + (prevResult == null ? "" : ",\"prevResult\":" + prevResult) + "}";
        PluginCall call = PluginCall.of("DEL").netns("").containerId("ctr").ifName("eth0").stdin(conf);
        return w.hostNs.call(() -> call.run(Skel.of("t", plugin, CniVersion.SUPPORTED)));
    }

    @Test
    void delWithoutNetnsDeletesTheRecordedHostEndAndSoThePairOfANamespaceThatLivesOn() throws Exception {
        VethPair pair = pair();
        String host = pair.host().name();

        delWithoutNetns(prevResult(host, pair.host().address().toString()), (ns, veth, prev) -> true).ok();

        assertThat(w.host.nl().findLink(host)).isEmpty();
        assertThat(w.container.nl().findLink("eth0")).as("the container's end goes with it").isEmpty();
        delWithoutNetns(prevResult(host, pair.host().address().toString()), (ns, veth, prev) -> true).ok();
    }

    @Test
    void delWithoutNetnsKeepsAVethOfTheRecordedNameWithAnotherMac() throws Exception {
        VethPair pair = pair();
        String host = pair.host().name();
        String other = pair.host().address().equals(MacAddress.parse("0a:58:00:00:00:01")) ? "0a:58:00:00:00:02"
                : "0a:58:00:00:00:01";

        delWithoutNetns(prevResult(host, other), (ns, veth, prev) -> true).ok();

        assertThat(w.host.nl().findLink(host)).as("a veth that took the name since is not ours").isPresent();
        assertThat(w.container.nl().findLink("eth0")).isPresent();
    }

    @Test
    void delWithoutNetnsKeepsWhatThePluginDoesNotRecognizeAndNeedsAPrevResult() throws Exception {
        VethPair pair = pair();
        String host = pair.host().name();

        delWithoutNetns(prevResult(host, pair.host().address().toString()), (ns, veth, prev) -> false).ok();
        assertThat(w.host.nl().findLink(host)).as("not a port of the bridge, say").isPresent();

        delWithoutNetns(null, (ns, veth, prev) -> true).ok();
        assertThat(w.host.nl().findLink(host)).as("without prevResult nothing names the host end").isPresent();
    }
}
