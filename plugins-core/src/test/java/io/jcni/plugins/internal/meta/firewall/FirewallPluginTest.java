package io.jcni.plugins.internal.meta.firewall;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Nftables;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.internal.pkg.nft.AttachmentComment;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniVersion;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The firewall plugin's configuration and error codes, every refusal before any side effect (those calls run in the
 * test's own namespace but fail before touching nftables), and its ADD, CHECK, DEL, GC and STATUS in a namespace of
 * the test's own ({@link Worlds}), read back through netlink-ffm.
 */
class FirewallPluginTest {
    private final Skel skel = PluginRegistry.skel("firewall");

    static final String PREV = "\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"cni-br\"},"
            + "{\"name\":\"eth0\",\"sandbox\":\"/var/run/netns/x\"}],\"ips\":[{\"address\":\"10.88.0.5/16\","
            + "\"interface\":1},{\"address\":\"fd88::5/64\",\"interface\":1}]}";

    static String conf(String version, String extra) {
        return "{\"cniVersion\":\"" + version + "\",\"name\":\"fwnet\",\"type\":\"firewall\"" + extra + "}";
    }

    private PluginCall.Outcome call(String command, String stdin) {
        return PluginCall.of(command).netns("/var/run/netns/jcni-fw-never").containerId("ctr1").ifName("eth0")
                .stdin(stdin).run(skel);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        missing prevResult is Go's error and code|,"backend":""|999|missing prevResult from earlier plugin
        firewalld is refused|,"backend":"firewalld",PREV|2|backend "firewalld" is not supported
        admin chain with a space|,"iptablesAdminChainName":"MY ADMIN",PREV|7|iptablesAdminChainName: invalid chain name "MY ADMIN"
        admin chain with a quote|,"iptablesAdminChainName":"MY\\"ADMIN",PREV|7|iptablesAdminChainName: invalid chain name "MY"ADMIN"
        admin chain starting with a dash|,"iptablesAdminChainName":"-ADMIN",PREV|7|iptablesAdminChainName: invalid chain name "-ADMIN"
        admin chain of 29 characters|,"iptablesAdminChainName":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAA",PREV|7|iptablesAdminChainName: invalid chain name "AAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        admin chain named as ours|,"iptablesAdminChainName":"CNI-FORWARD",PREV|7|iptablesAdminChainName: "CNI-FORWARD" is one of the plugin's own chains
        unknown ingress policy|,"ingressPolicy":"closed",PREV|7|unknown ingress policy: "closed"
        backend of the wrong type|,"backend":1,PREV|6|backend: expected string, got number
        same-bridge without a bridge|,"ingressPolicy":"same-bridge","prevResult":{"cniVersion":"1.0.0","ips":[{"address":"10.88.0.5/16"}]}|999|interface needs to be set for ingress policy "same-bridge", make sure to chain "firewall" plugin with "bridge"
        """)
    void addIsRefusedBeforeAnySideEffect(String what, String extra, int code, String msg) throws Exception {
        CniError error = call("ADD", conf("1.0.0", extra.replace("PREV", PREV))).error();
        assertThat(error.code()).as(what).isEqualTo(code);
        assertThat(error.msg()).as(what).isEqualTo(msg);
        if (code == CniError.UNSUPPORTED_FIELD || code == CniError.INVALID_NETWORK_CONFIG) {
            assertThat(error.details()).as(what).isNotEmpty();
        }
    }

    @Test
    void checkNeedsThePrevResultToo() throws Exception {
        CniError error = call("CHECK", conf("1.0.0", ",\"backend\":\"\"")).error();
        assertThat(error.code()).isEqualTo(CniError.INTERNAL);
        assertThat(error.msg()).isEqualTo("missing prevResult from earlier plugin");
    }

    @Test
    void versionAnswersEverySupportedVersion() throws Exception {
        String out = PluginCall.of("VERSION").stdin("{\"cniVersion\":\"1.1.0\"}").run(skel).ok().stdout();
        for (CniVersion v : CniVersion.SUPPORTED) {
            assertThat(out).contains("\"" + v + "\"");
        }
        assertThat(out).contains("\"0.1.0\"", "\"1.1.0\"");
    }

    /** The whole life of two attachments in a namespace standing for the host. */
    @Test
    void addCheckDelAndGcInAHostOfTheTestsOwn() throws Exception {
        try (Worlds w = Worlds.create(); NftablesHandle nft = Nftables.open(w.hostNs)) {
            String add = conf("1.1.0", ",\"backend\":\"\",\"ingressPolicy\":\"same-bridge\"," + PREV);
            String other = add.replace("10.88.0.5", "10.88.0.6").replace("fd88::5", "fd88::6");
            assertThat(inHost(w, "ADD", add, "ctr1").status()).isZero();
            assertThat(inHost(w, "ADD", other, "ctr2").status()).isZero();

            assertThat(nft.chains(TableFamily.INET, FirewallRules.TABLE)).extracting(Chain::name)
                    .containsExactlyInAnyOrder("FORWARD", "CNI-FORWARD", "CNI-ADMIN", "CNI-ISOLATION-STAGE-1",
                            "CNI-ISOLATION-STAGE-2");
            List<Rule> forward = nft.rules(TableFamily.INET, FirewallRules.TABLE, "FORWARD");
            assertThat(forward).extracting(Rule::comment).containsExactly(FirewallRules.ISOLATION_COMMENT,
                    FirewallRules.FORWARD_COMMENT);
            String c1 = AttachmentComment.of("fwnet", "eth0", "ctr1");
            String c2 = AttachmentComment.of("fwnet", "eth0", "ctr2");
            assertThat(nft.rules(TableFamily.INET, FirewallRules.TABLE, "CNI-FORWARD")).extracting(Rule::comment)
                    .containsExactly(FirewallRules.ADMIN_COMMENT, c1, c1, c1, c1, c2, c2, c2, c2);
            assertThat(nft.rules(TableFamily.INET, FirewallRules.TABLE, "CNI-ISOLATION-STAGE-1")).hasSize(1);
            assertThat(nft.rules(TableFamily.INET, FirewallRules.TABLE, "CNI-ISOLATION-STAGE-2")).hasSize(1);

            assertThat(inHost(w, "CHECK", add, "ctr1").status()).isZero();
            Rule ours = nft.rules(TableFamily.INET, FirewallRules.TABLE, "CNI-FORWARD").get(2);
            var tx = nft.transaction();
            tx.deleteRule(TableFamily.INET, FirewallRules.TABLE, "CNI-FORWARD", ours.handle());
            tx.commit();
            CniError broken = inHost(w, "CHECK", add, "ctr1").error();
            assertThat(broken.code()).isEqualTo(CniError.INTERNAL);
            assertThat(broken.msg()).startsWith("expected CNI-FORWARD rule ");

            assertThat(inHost(w, "DEL", conf("1.1.0", ""), "ctr1").status()).isZero();
            assertThat(inHost(w, "DEL", conf("1.1.0", ""), "ctr1").status()).as("DEL twice").isZero();
            assertThat(nft.rules(TableFamily.INET, FirewallRules.TABLE, "CNI-FORWARD")).extracting(Rule::comment)
                    .containsExactly(FirewallRules.ADMIN_COMMENT, c2, c2, c2, c2);

            CniError noList = inHost(w, "GC", conf("1.1.0", ""), "").error();
            assertThat(noList.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            String gc = conf("1.1.0", ",\"cni.dev/valid-attachments\":[{\"containerID\":\"ctr9\",\"ifname\":\"eth0\"}]");
            assertThat(inHost(w, "GC", gc, "").status()).isZero();
            assertThat(nft.rules(TableFamily.INET, FirewallRules.TABLE, "CNI-FORWARD")).extracting(Rule::comment)
                    .containsExactly(FirewallRules.ADMIN_COMMENT);
            assertThat(inHost(w, "STATUS", conf("1.1.0", ""), "").status()).isZero();
        }
    }

    private PluginCall.Outcome inHost(Worlds w, String command, String stdin, String containerId) {
        PluginCall call = PluginCall.of(command).stdin(stdin);
        if (!containerId.isEmpty()) {
            call.containerId(containerId).ifName("eth0").netns(w.containerNs.path().toString());
        }
        return w.hostNs.call(() -> call.run(skel));
    }
}
