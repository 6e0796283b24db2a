package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.contents;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.ip;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.range;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.reserved;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.set;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.who;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import io.jcni.plugins.internal.pkg.ipam.ranges.Reservation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostLocalStoreTest {

    @TempDir
    Path dataDir;

    HostLocalStore store;
    Path dir;

    @BeforeEach
    void open() throws Exception {
        store = HostLocalStore.open(dataDir, "net1");
        dir = dataDir.resolve("net1");
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    private List<String> add(String id, List<RangeSet> sets, IpAddress... requested) throws IpamException {
        List<String> out = new ArrayList<>();
        for (Allocation a : store.allocate(who(id), sets, List.of(requested), OnExisting.REUSE)) {
            out.add(a.cidr());
        }
        return out;
    }

    @Test
    void slash30HoldsOneAddressThenReportsExhaustionInGosWords() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/30"));
        assertThat(add("c1", sets)).containsExactly("10.1.0.2/30");
        assertThatThrownBy(() -> add("c2", sets))
                .isInstanceOf(IpamException.class)
                .hasMessage("failed to allocate for range 0: no IP addresses available in range set: 10.1.0.1-10.1.0.2")
                .extracting(e -> ((IpamException) e).reason()).isEqualTo(Reason.NO_ADDRESS_AVAILABLE);
        assertThat(contents(dir)).isEqualTo(Map.of(
                "10.1.0.2", "c1\r\neth0",
                "last_reserved_ip.0", "10.1.0.2",
                "lock", ""));
    }

    @Test
    void ipv6Slash126HoldsTwoAddressesAfterTheGateway() throws Exception {
        List<RangeSet> sets = List.of(set("fd00::/126"));
        assertThat(add("a", sets)).containsExactly("fd00::2/126");
        assertThat(add("b", sets)).containsExactly("fd00::3/126");
        assertThatThrownBy(() -> add("c", sets))
                .hasMessage("failed to allocate for range 0: no IP addresses available in range set: fd00::1-fd00::3");
        assertThat(reserved(dir)).containsExactly("fd00::2", "fd00::3");
    }

    @Test
    void dualStackGetsOneAddressPerRangeSetAndRemembersEachSetsLast() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"), set("2001:db8:1::/64"));
        List<Allocation> got = store.allocate(who("c1"), sets, List.of(), OnExisting.REUSE);
        assertThat(got).extracting(Allocation::cidr).containsExactly("10.1.0.2/24", "2001:db8:1::2/64");
        assertThat(got).extracting(a -> a.gateway().toString()).containsExactly("10.1.0.1", "2001:db8:1::1");
        assertThat(got).extracting(Allocation::rangeSetIndex).containsExactly(0, 1);
        assertThat(contents(dir)).containsEntry("2001:db8:1::2", "c1\r\neth0")
                .containsEntry("last_reserved_ip.0", "10.1.0.2")
                .containsEntry("last_reserved_ip.1", "2001:db8:1::2");
        assertThat(add("c2", sets)).containsExactly("10.1.0.3/24", "2001:db8:1::3/64");
    }

    @Test
    void requestedAddressIsReservedAndMovesTheRoundRobin() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        assertThat(add("c1", sets, ip("10.1.0.50"))).containsExactly("10.1.0.50/24");
        assertThat(contents(dir)).containsEntry("last_reserved_ip.0", "10.1.0.50");
        assertThat(add("c2", sets)).containsExactly("10.1.0.51/24");
    }

    @Test
    void lastReservedWrittenOverALongerTextLeavesNoTail() throws Exception {
        List<RangeSet> sets = List.of(set("fd00::/64"));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("last_reserved_ip.0"), "fd00:0:0:0::2"); // Go parses it; we must cut it
        assertThat(add("a", sets)).containsExactly("fd00::3/64");
        assertThat(contents(dir)).containsEntry("last_reserved_ip.0", "fd00::3");
    }

    @Test
    void requestedAddressTakenOutOfRangeOrGatewayFailsWithGosMessagesAndLeavesNothing() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"), set("fd00::/64"));
        add("c1", sets, ip("10.1.0.50"));
        assertThatThrownBy(() -> add("c2", sets, ip("10.1.0.50")))
                .hasMessage("failed to allocate for range 0: requested IP address 10.1.0.50 is not available in range "
                        + "set 10.1.0.1-10.1.0.254")
                .extracting(e -> ((IpamException) e).reason()).isEqualTo(Reason.REQUESTED_IP_UNAVAILABLE);
        // The v4 set is allocated, then the leftover request fails the call: the v4 address is released again.
        assertThatThrownBy(() -> add("c3", sets, ip("10.9.9.9")))
                .hasMessage("failed to allocate all requested IPs: 10.9.9.9");
        assertThatThrownBy(() -> add("c4", sets, ip("fd00::1")))
                .hasMessage("failed to allocate for range 1: requested ip fd00::1 is subnet's gateway");
        // The second set fails after the first allocated: the first is rolled back.
        assertThat(reserved(dir)).containsExactly("10.1.0.50", "fd00::2");
        assertThat(store.find(who("c3"))).isEmpty();
        assertThat(store.find(who("c4"))).isEmpty();
    }

    @Test
    void repeatedAddOfOneAttachmentReturnsTheSameAllocation() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"), set("fd00::/64"));
        List<Allocation> first = store.allocate(who("c1"), sets, List.of(), OnExisting.REUSE);
        List<Allocation> again = store.allocate(who("c1"), sets, List.of(), OnExisting.REUSE);
        assertThat(again).extracting(Allocation::address).isEqualTo(first.stream().map(Allocation::address).toList());
        assertThat(first).extracting(Allocation::existing).containsExactly(false, false);
        assertThat(again).extracting(Allocation::existing).containsExactly(true, true);
        // Also when the same address is requested again.
        assertThat(store.allocate(who("c1"), sets, List.of(first.getFirst().address()), OnExisting.REUSE))
                .extracting(Allocation::existing).containsExactly(true, true);
        assertThat(reserved(dir)).hasSize(2);
        // Another interface of the same container is another attachment.
        assertThat(store.allocate(new Attachment("c1", "eth1"), sets, List.of(), OnExisting.REUSE))
                .extracting(Allocation::cidr).containsExactly("10.1.0.3/24", "fd00::3/64");
    }

    @Test
    void rejectPolicyFailsARepeatedAddAsGo111Does() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        store.allocate(who("c1"), sets, List.of(), OnExisting.REJECT);
        assertThatThrownBy(() -> store.allocate(who("c1"), sets, List.of(), OnExisting.REJECT))
                .hasMessage("failed to allocate for range 0: 10.1.0.2 has been allocated to c1, duplicate allocation "
                        + "is not allowed")
                .extracting(e -> ((IpamException) e).reason()).isEqualTo(Reason.DUPLICATE_ALLOCATION);
    }

    @Test
    void releaseTwiceReleasesOnceAndThenNothing() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"), set("fd00::/64"));
        add("c1", sets);
        add("c2", sets);
        assertThat(store.release(who("c1"))).extracting(IpAddress::toString).containsExactly("10.1.0.2", "fd00::2");
        assertThat(store.release(who("c1"))).isEmpty();
        assertThat(store.release(who("never"))).isEmpty();
        assertThat(reserved(dir)).containsExactly("10.1.0.3", "fd00::3");
        assertThat(store.find(who("c2"))).extracting(r -> r.address().toString()).containsExactly("10.1.0.3", "fd00::3");
    }

    /** The sequence also runs against Go's binary in GoInteropTest, which checks Go hands out the same addresses. */
    @Test
    void roundRobinContinuesAfterTheLastReservedAddressAndWraps() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/29")); // 10.1.0.1-10.1.0.6, gateway .1
        assertThat(add("a", sets)).containsExactly("10.1.0.2/29");
        assertThat(add("b", sets)).containsExactly("10.1.0.3/29");
        assertThat(add("c", sets)).containsExactly("10.1.0.4/29");
        store.release(who("b"));
        assertThat(add("d", sets)).containsExactly("10.1.0.5/29"); // not the freed .3
        assertThat(add("e", sets)).containsExactly("10.1.0.6/29");
        assertThat(add("f", sets)).containsExactly("10.1.0.3/29"); // wrapped, skipped the gateway and .2
        assertThatThrownBy(() -> add("g", sets)).hasMessageContaining("no IP addresses available");
    }

    @Test
    void roundRobinRunsThroughEveryRangeOfASetInOrder() throws Exception {
        List<RangeSet> sets = List.of(RangeSet.canonical(List.of(
                RangeSpec.of(Fixtures.prefix("10.1.0.0/30")),
                new RangeSpec(Fixtures.prefix("10.2.0.0/24"), ip("10.2.0.10"), ip("10.2.0.11"), null))));
        assertThat(add("a", sets)).containsExactly("10.1.0.2/30");
        assertThat(add("b", sets)).containsExactly("10.2.0.10/24");
        assertThat(add("c", sets)).containsExactly("10.2.0.11/24");
        store.release(who("a"));
        assertThat(add("d", sets)).containsExactly("10.1.0.2/30");
        assertThatThrownBy(() -> add("e", sets)).hasMessage("failed to allocate for range 0: no IP addresses "
                + "available in range set: 10.1.0.1-10.1.0.2,10.2.0.10-10.2.0.11");
    }

    @Test
    void gatewayInsideAnExplicitRangeIsSkipped() throws Exception {
        List<RangeSet> sets = List.of(range("10.1.0.0/24", "10.1.0.10", "10.1.0.12", "10.1.0.11"));
        assertThat(add("a", sets)).containsExactly("10.1.0.10/24");
        assertThat(add("b", sets)).containsExactly("10.1.0.12/24");
        assertThatThrownBy(() -> add("c", sets)).hasMessageContaining("range set: 10.1.0.10-10.1.0.12");
    }

    @Test
    void gcKeepsOnlyValidAttachmentsAndLegacyFilesOfValidContainers() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        add("a", sets);
        store.allocate(new Attachment("a", "eth1"), sets, List.of(), OnExisting.REUSE);
        add("b", sets);
        Files.writeString(dir.resolve("10.1.0.100"), "legacy"); // written by host-local < 0.7
        Files.writeString(dir.resolve("10.1.0.101"), "gone-legacy");
        Files.writeString(dir.resolve("10.1.0.102"), ""); // torn: its writer died

        List<Reservation> released = store.gc(List.of(who("a"), new Attachment("legacy", "eth9")));

        assertThat(released).extracting(r -> r.address() + " " + r.containerId() + "/" + r.ifname())
                .containsExactlyInAnyOrder("10.1.0.3 a/eth1", "10.1.0.4 b/eth0", "10.1.0.101 gone-legacy/",
                        "10.1.0.102 /");
        assertThat(contents(dir).keySet()).containsExactly("10.1.0.100", "10.1.0.2", "last_reserved_ip.0", "lock");
        // The index agrees with the directory afterwards.
        assertThat(store.find(who("b"))).isEmpty();
        assertThat(add("c", sets)).containsExactly("10.1.0.5/24"); // round-robin goes on after b's .4
    }

    @Test
    void legacyReservationBelongsToEveryInterfaceOfItsContainerUnlessAnExactOneExists() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        add("x", sets); // 10.1.0.2
        Files.writeString(dir.resolve("10.1.0.77"), "old\n"); // Go trims white space around the content
        assertThat(store.find(new Attachment("old", "eth3")))
                .containsExactly(new Reservation(ip("10.1.0.77"), "old", ""));
        // Go's GetByID sees the legacy file as the container's: REUSE returns it, REJECT names it.
        assertThat(store.allocate(new Attachment("old", "eth3"), sets, List.of(), OnExisting.REUSE))
                .extracting(a -> a.address().toString() + " " + a.existing()).containsExactly("10.1.0.77 true");
        assertThatThrownBy(() -> store.allocate(new Attachment("old", "eth3"), sets, List.of(), OnExisting.REJECT))
                .hasMessageContaining("10.1.0.77 has been allocated to old");
        // An exact reservation wins over the legacy one for find and release, as in Go's ReleaseByID.
        store.allocate(new Attachment("old", "eth0"), List.of(set("10.2.0.0/24")), List.of(), OnExisting.REUSE);
        assertThat(store.release(new Attachment("old", "eth0"))).extracting(IpAddress::toString)
                .containsExactly("10.2.0.2");
        assertThat(store.release(new Attachment("old", "eth0"))).extracting(IpAddress::toString)
                .containsExactly("10.1.0.77");
        assertThat(reserved(dir)).containsExactly("10.1.0.2");
    }

    @Test
    void changesMadeBehindTheIndexAreSeenOnTheNextOperation() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        add("a", sets); // .2, index built
        // What Go's host-local does on ADD: create the file, write last_reserved_ip.
        Files.writeString(dir.resolve("10.1.0.3"), "go-c\r\neth0");
        Files.writeString(dir.resolve("last_reserved_ip.0"), "10.1.0.3");
        assertThat(store.find(who("go-c"))).extracting(r -> r.address().toString()).containsExactly("10.1.0.3");
        assertThat(add("b", sets)).containsExactly("10.1.0.4/24");
        // What Go's DEL does: remove the file. The address is free again for a requested allocation.
        Files.delete(dir.resolve("10.1.0.2"));
        assertThat(store.find(who("a"))).isEmpty();
        assertThat(add("c", sets, ip("10.1.0.2"))).containsExactly("10.1.0.2/24");
    }

    @Test
    void onlyTheFirstOperationAndForeignChangesCostAFullScan() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/16"), set("fd00::/112"));
        add("first", sets);
        assertThat(store.scans()).isEqualTo(1);
        for (int i = 0; i < 300; i++) {
            add("c" + i, sets);
        }
        for (int i = 0; i < 300; i += 2) {
            store.release(who("c" + i));
        }
        for (int i = 0; i < 300; i++) {
            store.find(who("c" + i));
        }
        add("after-release", sets);
        store.allocate(who("requested"), sets, List.of(ip("10.1.200.1")), OnExisting.REUSE);
        assertThat(store.scans()).isEqualTo(1);
        // A second store (another process, or the next exec) trusts the index too.
        try (HostLocalStore next = HostLocalStore.open(dataDir, "net1")) {
            assertThat(next.find(who("c1"))).hasSize(2);
            next.allocate(who("next"), sets, List.of(), OnExisting.REUSE);
            assertThat(next.scans()).isZero();
        }
        // Its changes are not foreign to the first store: the index recorded them.
        store.find(who("next"));
        assertThat(store.scans()).isEqualTo(1);
        Files.writeString(dir.resolve("10.1.250.250"), "go\r\neth0");
        store.find(who("go"));
        assertThat(store.scans()).isEqualTo(2);
    }

    @Test
    void staleIndexHitIsVerifiedAgainstTheFileAndDropped() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        add("a", sets); // .2
        // The file changes owner without the directory changing (same name rewritten in place).
        Files.writeString(dir.resolve("10.1.0.2"), "someone-else\r\neth0");
        assertThat(store.find(who("a"))).isEmpty();
        assertThat(store.release(who("a"))).isEmpty();
        assertThat(contents(dir)).containsEntry("10.1.0.2", "someone-else\r\neth0");
    }

    @Test
    void garbageInTheIndexFileCostsARebuildNotAWrongAnswer() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        add("a", sets);
        add("b", sets);
        Path index = dataDir.resolve(".jcni").resolve("net1.index");
        assertThat(index).isRegularFile();
        byte[] junk = new byte[(int) Files.size(index)];
        new java.util.Random(7).nextBytes(junk);
        Files.write(index, junk);
        assertThat(store.find(who("a"))).extracting(r -> r.address().toString()).containsExactly("10.1.0.2");
        assertThat(add("c", sets)).containsExactly("10.1.0.4/24");
        Files.delete(index);
        assertThat(store.release(who("b"))).extracting(IpAddress::toString).containsExactly("10.1.0.3");
    }

    @Test
    void anIndexWrittenInAnotherBootIsRebuiltBecauseItsWritesWereNeverSynced() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        add("a", sets);
        add("b", sets);
        long scans = store.scans();
        store.find(who("a"));
        assertThat(store.scans()).isEqualTo(scans);
        // The header's boot id (offset 104) as a previous boot would have left it.
        try (var ch = java.nio.channels.FileChannel.open(dataDir.resolve(".jcni/net1.index"),
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[16]), 104);
        }
        assertThat(store.find(who("a"))).extracting(r -> r.address().toString()).containsExactly("10.1.0.2");
        assertThat(store.scans()).isEqualTo(scans + 1);
        store.find(who("b"));
        assertThat(store.scans()).isEqualTo(scans + 1);
    }

    @Test
    void theNetworkDirectoryHoldsOnlyWhatGoWritesAndTheIndexLivesBesideIt() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"), set("fd00::/64"));
        for (int i = 0; i < 50; i++) {
            add("c" + i, sets);
        }
        for (int i = 0; i < 50; i++) {
            store.release(who("c" + i));
        }
        assertThat(contents(dir).keySet()).containsExactly("last_reserved_ip.0", "last_reserved_ip.1", "lock");
        try (var s = Files.list(dataDir)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList()).containsExactly(".jcni", "net1");
        }
    }

    @Test
    void storesOfDifferentNetworksInOneDataDirAreIndependent() throws Exception {
        try (HostLocalStore other = HostLocalStore.open(dataDir, "net2")) {
            List<RangeSet> sets = List.of(set("10.1.0.0/24"));
            add("a", sets);
            assertThat(other.allocate(who("a"), sets, List.of(), OnExisting.REUSE).getFirst().cidr())
                    .isEqualTo("10.1.0.2/24");
            assertThat(other.find(who("a"))).hasSize(1);
            other.release(who("a"));
            assertThat(store.find(who("a"))).hasSize(1);
        }
    }

    @Test
    void refusesNamesTheFormatCannotHold() {
        assertThatThrownBy(() -> HostLocalStore.open(dataDir, "../etc"))
                .extracting(e -> ((IpamException) e).reason()).isEqualTo(Reason.INVALID_ARGUMENT);
        assertThatThrownBy(() -> HostLocalStore.open(dataDir, ".jcni")).isInstanceOf(IpamException.class);
        assertThatThrownBy(() -> store.allocate(new Attachment("a\r\nb", "eth0"), List.of(set("10.1.0.0/24")),
                List.of(), OnExisting.REUSE)).isInstanceOf(IpamException.class);
        assertThatThrownBy(() -> store.release(new Attachment("a", ""))).isInstanceOf(IpamException.class);
        assertThatThrownBy(() -> store.release(new Attachment("  ", "eth0"))).isInstanceOf(IpamException.class);
    }

    @Test
    void tornFileLeftByADeadWriterIsRemovedThroughItsIntent() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/24"));
        add("a", sets);
        // The on-disk state a SIGKILL between create and write leaves (StoreProcessTest makes it for real).
        try (StoreIndex idx = StoreIndex.open(dataDir.resolve(".jcni/net1.index"))) {
            assertThat(idx.load()).isTrue();
            idx.writeIntent(ip("10.1.0.3"));
        }
        Files.write(dir.resolve("10.1.0.3"), new byte[0]);
        assertThat(add("b", sets)).containsExactly("10.1.0.3/24");
        assertThat(contents(dir)).containsEntry("10.1.0.3", "b\r\neth0");
    }

    @Test
    void emptyFileWithoutIntentIsLeftAloneAsGoWouldButGcRemovesIt() throws Exception {
        List<RangeSet> sets = List.of(set("10.1.0.0/29"));
        add("a", sets); // .2
        Files.write(dir.resolve("10.1.0.3"), new byte[0]); // e.g. a Go host-local killed mid-write
        assertThat(add("b", sets)).containsExactly("10.1.0.4/29");
        assertThat(store.gc(List.of(who("a"), who("b")))).extracting(r -> r.address().toString())
                .containsExactly("10.1.0.3");
    }

    @Test
    void largeIpv6RangesAreWalkedByProbingFiles() throws Exception {
        List<RangeSet> sets = List.of(set("fd00:1::/64"));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("fd00:1::2"), "go\r\neth0");
        Files.writeString(dir.resolve("fd00:1::3"), "go\r\neth1");
        assertThat(add("a", sets)).containsExactly("fd00:1::4/64");
        assertThat(store.release(new Attachment("go", "eth1"))).extracting(IpAddress::toString)
                .containsExactly("fd00:1::3");
    }

    @Test
    void aFullBitmapRangeNextToAFreeOneFillsInGosOrder() throws Exception {
        // 254 addresses per /24: fill one completely through requests, then the walk must move on.
        List<RangeSet> sets = List.of(RangeSet.canonical(List.of(
                RangeSpec.of(Fixtures.prefix("10.1.0.0/24")), RangeSpec.of(Fixtures.prefix("10.1.1.0/24")))));
        for (int i = 2; i <= 254; i++) {
            add("r" + i, sets, ip("10.1.0." + i));
        }
        assertThat(add("next", sets)).containsExactly("10.1.1.2/24");
        String content = Files.readString(dir.resolve("10.1.0.254"), StandardCharsets.UTF_8);
        assertThat(content).isEqualTo("r254\r\neth0");
    }
}
