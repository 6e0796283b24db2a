package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Batches: many requests per datagram, applied in order but not atomically, with a result per request. */
class BatchTest {
    private TestNamespace t;
    private Link v0;

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
        v0 = t.vethPair("v0", "v1");
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    private static InetAddress host(int i) {
        return Cidrs.ip("10.20." + (i / 250) + "." + (i % 250 + 1));
    }

    @Test
    void appliesManyRequestsAcrossChunksAndReportsEachSuccess() {
        Batch batch = t.nl.batch();
        int n = 200; // more than one 64-request chunk
        for (int i = 0; i < n; i++) {
            batch.addAddress(v0.index(), host(i), 32);
        }
        assertThat(batch.size()).isEqualTo(n);
        BatchResult result = batch.execute();
        assertThat(batch.size()).as("executed batches are empty").isZero();
        assertThat(result.outcomes()).hasSize(n).allMatch(BatchResult.Outcome::succeeded);
        assertThat(result.allSucceeded()).isTrue();
        assertThat(result.outcomes()).extracting(BatchResult.Outcome::index)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, n).boxed().toList());
        assertThat(t.nl.addresses(v0.index(), Family.V4)).hasSize(n);
        assertThat(t.ip("-4", "addr", "show", "dev", "v0").get(0).get("addr_info")).hasSize(n);
    }

    @Test
    void aFailureInTheMiddleStopsNothingAndUndoesNothing() {
        t.nl.addAddress(v0.index(), host(1), 32);
        Batch batch = t.nl.batch();
        batch.addAddress(v0.index(), host(0), 32);
        batch.addAddress(v0.index(), host(1), 32); // exists already
        batch.addRoute(Cidrs.route("10.30.0.0/16").dev(v0.index()));
        batch.deleteAddress(v0.index(), host(7), 32); // not there
        batch.addAddress(v0.index(), host(2), 32);
        BatchResult result = batch.execute();

        assertThat(result.outcomes()).extracting(BatchResult.Outcome::succeeded)
                .containsExactly(true, false, true, false, true);
        assertThat(result.allSucceeded()).isFalse();
        List<NetlinkException> failures = result.failures();
        assertThat(failures).hasSize(2);
        assertThat(failures.get(0).isExists()).isTrue();
        assertThat(failures.get(0).operation()).isEqualTo("RTM_NEWADDR 10.20.0.2/32 dev " + v0.index());
        assertThat(failures.get(1).isNotFound()).isTrue();
        assertThat(failures.get(1).operation()).startsWith("RTM_DELADDR 10.20.0.8/32");
        assertThat(t.nl.addresses(v0.index(), Family.V4)).extracting(a -> Cidrs.of(a))
                .containsExactlyInAnyOrder(host(0).getHostAddress() + "/32", host(1).getHostAddress() + "/32",
                        host(2).getHostAddress() + "/32");
        assertThat(t.nl.routes(Family.V4)).extracting(x -> Cidrs.of(x)).contains(Cidrs.canonical("10.30.0.0/16"));
        assertThatThrownBy(result::throwIfFailed).isSameAs(failures.get(0))
                .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(failures.get(1)));
    }

    @Test
    void requestsApplyInOrderSoALaterOneMaySeeAnEarlierOne() {
        Batch batch = t.nl.batch();
        batch.addBridge(LinkAttrs.named("br0"));
        batch.addVeth(LinkAttrs.named("x0"), LinkAttrs.named("x1"));
        batch.deleteLink("x1");
        batch.addAddress(v0.index(), host(3), 32);
        batch.deleteAddress(v0.index(), host(3), 32);
        batch.addNeighbor(Neighbor.permanent(v0.index(), InetAddress.ofLiteral("10.20.0.9"),
                MacAddress.parse("02:00:00:00:00:09")));
        assertThat(batch.execute().allSucceeded()).isTrue();
        assertThat(t.nl.links()).extracting(Link::name).containsExactlyInAnyOrder("lo", "v0", "v1", "br0");
        assertThat(t.nl.addresses(v0.index(), Family.V4)).isEmpty();
        assertThat(t.nl.neighbors(Family.V4, v0.index())).hasSize(1);
    }

    @Test
    void aRequestThatFailsToEncodeIsNotQueuedAndTheBatchIsReusable() {
        Batch batch = t.nl.batch();
        batch.addAddress(v0.index(), host(4), 32);
        assertThatThrownBy(() -> batch.setMtu(v0.index(), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> batch.addVeth(LinkAttrs.named("a"), LinkAttrs.named("b").up(true)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(batch.size()).isEqualTo(1);
        assertThat(batch.execute().allSucceeded()).isTrue();
        batch.deleteAddress(v0.index(), host(4), 32);
        assertThat(batch.execute().allSucceeded()).isTrue();
        assertThat(t.nl.addresses(v0.index(), Family.V4)).isEmpty();
        assertThat(batch.execute().outcomes()).isEmpty();
    }

    @Test
    void theHandleKeepsWorkingBetweenAndAfterBatches() {
        Batch batch = t.nl.batch();
        batch.addAddress(v0.index(), host(5), 32);
        t.nl.addAddress(v0.index(), host(6), 32);
        assertThat(batch.execute().allSucceeded()).isTrue();
        assertThat(t.nl.addresses(v0.index(), Family.V4)).hasSize(2);
    }
}
