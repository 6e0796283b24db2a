package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * VRF links against the kernel. A kernel without {@code CONFIG_NET_VRF} (this project's test machines) must refuse
 * with EOPNOTSUPP and "Unknown device type", which the vrf plugin turns into code 50; a kernel with it must create the
 * device with its table and accept ports. One test for each; the one this kernel cannot run is skipped, as a kernel
 * feature's skip, never passed. The request's bytes are covered by {@code WireVectorsTest}.
 */
class VrfOpsTest {
    private TestNamespace t;

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    /** Whether this kernel creates VRF devices: the refusal of a probe device, or null if one was created. */
    private NetlinkException probe() {
        try {
            t.nl.addVrf(LinkAttrs.named("vrf-probe"), 1000);
        } catch (NetlinkException e) {
            return e;
        }
        t.nl.deleteLink(t.nl.link("vrf-probe").index());
        return null;
    }

    @Test
    void withoutVrfSupportTheKernelRefusesAsAnUnknownDeviceType() {
        NetlinkException refusal = probe();
        assumeTrue(refusal != null, "kernel: has CONFIG_NET_VRF: the refusal cannot be exercised");
        NetlinkException e = org.junit.jupiter.api.Assertions.assertThrows(NetlinkException.class,
                () -> t.nl.addVrf(LinkAttrs.named("vrf-blue"), 1001));
        assertThat(e.kind()).as(e.getMessage()).isEqualTo(NetlinkException.Kind.NOT_SUPPORTED);
        assertThat(e.errnoName()).isEqualTo("EOPNOTSUPP");
        assertThat(e.extAck()).isEqualTo("Unknown device type");
        assertThat(e.getMessage()).isEqualTo("RTM_NEWLINK vrf-blue type vrf table 1001: EOPNOTSUPP (Operation "
                + "not supported): Unknown device type");
        assertThat(t.nl.findLink("vrf-blue")).isEmpty();
    }

    @Test
    void withVrfSupportTheDeviceIsCreatedWithItsTableAndTakesPorts() {
        NetlinkException refusal = probe();
        assumeTrue(refusal == null, () -> "kernel: lacks CONFIG_NET_VRF (" + refusal.getMessage() + ")");
        Link v0 = t.vethPair("v0", "v1");
        t.nl.addVrf(LinkAttrs.named("vrf-blue"), 1001);
        Link vrf = t.nl.link("vrf-blue");
        assertThat(vrf.info()).isEqualTo(new LinkInfo.Vrf(1001));
        assertThat(t.ipLink("vrf-blue").get("linkinfo").get("info_data").get("table").asInt()).isEqualTo(1001);
        t.nl.setMaster(v0.index(), vrf.index());
        assertThat(t.nl.link(v0.index()).masterIndex()).isEqualTo(vrf.index());
    }
}
