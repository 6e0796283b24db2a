package io.jcni.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.HostStateGuard.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host-state guard catches what it promises to. Each kernel case makes one change on the machine's own namespace
 * in a controlled way (names from {@link Names}, so the change is attributable and cannot be mistaken for another
 * process's), checks that the guard reports it, undoes it in {@code finally}, and checks that the guard then sees
 * nothing of it. Other processes on the machine may change the host meanwhile; the assertions look only for what these
 * tests did.
 */
@MakesHostLinksOnPurpose("to prove that the guard sees links on the host, it must make some there")
class HostStateGuardTest {
    private static final String TAG = "hyg";
    private static final String WHERE = "io.jcni.it.SomeTest";

    @TempDir
    Path tmp;

    @Test
    void theGuardWatchesEveryClassOfTheSuiteThroughAutoDetection() {
        assertThat(HostStateGuard.guards(HostStateGuardTest.class))
                .as("HostStateGuardRegistration is found by ServiceLoader and ran before this class").isTrue();
    }

    @Test
    void aLinkMadeOnTheHostAndLeftThereFailsNamingIt() {
        Prerequisites.assumeRoot();
        String link = Names.link(TAG);
        String peer = Names.link(TAG);
        HostState before = HostState.capture();
        Processes.check("ip", "link", "add", link, "type", "veth", "peer", "name", peer);
        try {
            HostState after = HostState.capture();
            Verdict verdict = HostStateGuard.judge(WHERE, before, after, List.of(),
                    List.of("process 1: another test run"), false);
            assertThat(verdict.fails()).as("ours, whatever else happens on the machine").isTrue();
            assertThat(verdict.ours()).anyMatch(line -> line.startsWith("+ link " + link + " = kind=veth"))
                    .anyMatch(line -> line.startsWith("+ link " + peer + " = kind=veth"));
            assertThat(verdict.message()).startsWith(WHERE + " changed the host it runs on")
                    .contains("+ link " + link);
        } finally {
            Processes.run("ip", "link", "del", link);
        }
        Verdict undone = HostStateGuard.judge(WHERE, before, HostState.capture(), List.of(), List.of(), false);
        assertThat(undone.ours()).isEmpty();
    }

    @Test
    void aSysctlOfALinkOfOursThatChangesIsReported() {
        Prerequisites.assumeRoot();
        String link = Names.link(TAG);
        Processes.check("ip", "link", "add", link, "type", "veth", "peer", "name", Names.link(TAG));
        try {
            String key = "net/ipv6/conf/" + link + "/accept_ra";
            HostState before = HostState.capture();
            String was = before.get("sysctl " + key);
            String now = was.equals("0") ? "2" : "0";
            Processes.check("sysctl", "-qw", key.replace('/', '.') + "=" + now);
            Verdict verdict = HostStateGuard.judge(WHERE, before, HostState.capture(), List.of(), List.of(), false);
            assertThat(verdict.fails()).isTrue();
            assertThat(verdict.ours()).contains("~ sysctl " + key + ": " + was + " -> " + now);
        } finally {
            Processes.run("ip", "link", "del", link);
        }
    }

    @Test
    void aNamespaceLeftBehindFailsNamingIt() {
        HostState before = HostState.capture();
        TestNetns netns = TestNetns.create(TAG);
        try {
            Verdict verdict = HostStateGuard.judge(WHERE, before, HostState.capture(), List.of(), List.of(), false);
            assertThat(verdict.fails()).isTrue();
            assertThat(verdict.ours()).contains("+ netns " + netns.name());
        } finally {
            netns.close();
        }
        assertThat(HostStateGuard.judge(WHERE, before, HostState.capture(), List.of(), List.of(), false).ours())
                .isEmpty();
    }

    @Test
    void linksThatComeAndGoDuringTheClassAreSeenByTheMonitor() {
        Prerequisites.assumeRoot();
        TestNetns container = TestNetns.create(TAG);
        String bridge = Names.link(TAG);
        // Named as a plugin names a host end: only its peer's namespace tells it is ours.
        String hostEnd = "veth" + Names.randomHex(8);
        Set<String> existing = new HashSet<>(KernelState.host().links().stream().map(IpLink::name).toList());
        List<String> seen;
        try (LinkMonitor monitor = LinkMonitor.start(existing)) {
            try {
                Processes.check("ip", "link", "add", bridge, "type", "bridge");
                Processes.check("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", "eth0", "netns",
                        container.name());
            } finally {
                Processes.run("ip", "link", "del", bridge);
                Processes.run("ip", "link", "del", hostEnd);
            }
            monitor.close();
            seen = monitor.seen();
        } finally {
            container.close();
        }
        assertThat(seen).contains(bridge, hostEnd + " (its peer is in " + container.name() + ")");
        HostState now = HostState.capture();
        assertThat(now.get("link " + bridge)).isNull();
        assertThat(now.get("link " + hostEnd)).isNull();
        Verdict verdict = HostStateGuard.judge(WHERE, now, now, seen, List.of(), false);
        assertThat(verdict.fails()).isTrue();
        assertThat(verdict.ours()).contains("+- link " + bridge + " came and went during the class");
    }

    @Test
    void aTableAddedToTheHostsFirewallIsReported() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("nft");
        // A table of its own, so that removing it leaves the ruleset exactly as it was (a chain added with iptables
        // would leave behind the table iptables-nft creates for it).
        String table = "jcni_hyg_" + Names.randomHex(8);
        HostState before = HostState.capture();
        Processes.check("nft", "add", "table", "inet", table);
        try {
            Verdict verdict = HostStateGuard.judge(WHERE, before, HostState.capture(), List.of(), List.of(), false);
            assertThat(verdict.fails()).isTrue();
            assertThat(verdict.others()).contains("+ nft table inet " + table + " {");
        } finally {
            Processes.run("nft", "delete", "table", "inet", table);
        }
        Verdict undone = HostStateGuard.judge(WHERE, before, HostState.capture(), List.of(), List.of(), false);
        assertThat(undone.others()).noneMatch(line -> line.contains(table));
    }

    @Test
    void aFileUnderACniStateDirectoryIsReported() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("run-cni"));
        HostState before = HostState.capture(List.of(dir));
        Path backup = Files.writeString(dir.resolve("tuning-backup.json"), "{}");
        Verdict verdict = HostStateGuard.judge(WHERE, before, HostState.capture(List.of(dir)), List.of(), List.of(),
                false);
        assertThat(verdict.others()).anyMatch(line -> line.startsWith("+ file " + backup + " = file size=2"));
    }

    // ---- the verdict, on snapshots made up for the purpose ------------------------------------------------------

    static HostState state(String... keysAndValues) {
        Map<String, String> entries = new TreeMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            entries.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return new HostState(new TreeMap<>(entries));
    }

    @Test
    void ipForwardTurnedOnFailsUnlessOtherTestActivityMayHaveDoneIt() {
        HostState before = state("sysctl net/ipv4/ip_forward", "0", "link eth0", "kind=- mtu=1500");
        HostState after = state("sysctl net/ipv4/ip_forward", "1", "link eth0", "kind=- mtu=1500");

        Verdict alone = HostStateGuard.judge(WHERE, before, after, List.of(), List.of(), false);
        assertThat(alone.fails()).isTrue();
        assertThat(alone.others()).containsExactly("~ sysctl net/ipv4/ip_forward: 0 -> 1");
        assertThat(alone.message()).contains("~ sysctl net/ipv4/ip_forward: 0 -> 1");

        Verdict shared = HostStateGuard.judge(WHERE, before, after, List.of(), List.of("process 42: mvn verify"),
                false);
        assertThat(shared.fails()).isFalse();
        assertThat(shared.message()).startsWith("jcni host guard: the host changed while " + WHERE)
                .contains("~ sysctl net/ipv4/ip_forward: 0 -> 1").contains("process 42: mvn verify");

        assertThat(HostStateGuard.judge(WHERE, before, after, List.of(), List.of("process 42: mvn verify"), true)
                .fails()).as("strict").isTrue();
        assertThat(HostStateGuard.judge(WHERE, before, before, List.of(), List.of("process 42"), true).message())
                .as("nothing changed").isEmpty();
    }

    @Test
    void aNamespaceOfAnotherProcessIsEvidenceNotBlame() {
        HostState before = state("sysctl net/ipv4/ip_forward", "0");
        HostState after = state("sysctl net/ipv4/ip_forward", "1", "netns jcni-bench-0a1b2c-host", "");
        Verdict verdict = HostStateGuard.judge(WHERE, before, after, List.of(), List.of(), false);
        assertThat(verdict.fails()).isFalse();
        assertThat(verdict.message()).contains("namespace jcni-bench-0a1b2c-host appeared (not made by this JVM)");
    }

    @Test
    void whatALinkThatCameOrWentCarriesIsFoldedIntoIt() {
        String veth = "veth" + Names.randomHex(8);
        String ours = Names.netns(TAG);
        HostState before = state("sysctl net/ipv4/ip_forward", "0");
        HostState after = state("sysctl net/ipv4/ip_forward", "0", "link " + veth, "kind=veth peer-netns=" + ours,
                "addr " + veth + " 10.1.2.1/32", "", "route4 dst 10.1.2.2 dev " + veth, "");
        Verdict verdict = HostStateGuard.judge(WHERE, before, after, List.of(), List.of("process 42"), false);
        assertThat(verdict.fails()).as("a veth whose peer is in a namespace of ours").isTrue();
        assertThat(verdict.ours()).containsExactly("+ link " + veth + " = kind=veth peer-netns=" + ours);
        assertThat(verdict.message()).contains("(and 2 addresses, routes and sysctls of the links that came or went)");
    }

    @Test
    void sysctlsThatAppearWithAKernelModuleAreNoChange() {
        HostState before = state("sysctl net/ipv4/ip_forward", "0");
        HostState after = state("sysctl net/ipv4/ip_forward", "0", "sysctl net/netfilter/nf_log_all_netns", "0");
        assertThat(after.changesSince(before)).isEmpty();
    }
}
