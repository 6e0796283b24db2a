package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniException;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a lease makes of an ACK: its times (RFC 2131 4.4.5, Go's defaults), the address and prefix, Go's gateway and
 * routes (RFC 3442's option 121 before option 33 and the router), DNS (option 6, 15 and RFC 3397's search list).
 * The option encodings are RFC 3442's and RFC 3397's own examples.
 */
class LeaseTest {
    private static final byte[] MAC = {2, 0, 0, 0, 0, 1};

    static Lease lease(Map<Integer, byte[]> options) {
        Map<Integer, byte[]> all = new LinkedHashMap<>();
        all.put(DhcpMessage.OPT_MESSAGE_TYPE, new byte[] {DhcpMessage.ACK});
        all.put(DhcpMessage.OPT_SERVER_ID, new byte[] {10, 0, 0, 1});
        all.putAll(options);
        DhcpMessage ack = new DhcpMessage(DhcpMessage.BOOTREPLY, 1, 0, 0, null, new byte[] {10, 0, 0, 7}, null, null,
                MAC, all);
        return new Lease(ack, 1_000_000, new byte[] {2, 0, 0, 0, 0, 9});
    }

    static Map<Integer, byte[]> options(Object... codesAndValues) {
        Map<Integer, byte[]> options = new LinkedHashMap<>();
        for (int i = 0; i < codesAndValues.length; i += 2) {
            options.put((Integer) codesAndValues[i], (byte[]) codesAndValues[i + 1]);
        }
        return options;
    }

    static byte[] seconds(long s) {
        return new byte[] {(byte) (s >>> 24), (byte) (s >>> 16), (byte) (s >>> 8), (byte) s};
    }

    static final byte[] MASK_24 = {(byte) 255, (byte) 255, (byte) 255, 0};

    @Test
    void timesComeFromOptions51To59OrTheirDefaults() {
        Lease given = lease(options(51, seconds(120), 58, seconds(3), 59, seconds(100)));
        assertThat(given.renewAt()).isEqualTo(1_000_000 + 3_000);
        assertThat(given.rebindAt()).isEqualTo(1_000_000 + 100_000);
        assertThat(given.expiresAt()).isEqualTo(1_000_000 + 120_000);
        Lease defaults = lease(options(51, seconds(800)));
        assertThat(defaults.renewAt()).isEqualTo(1_000_000 + 400_000);
        assertThat(defaults.rebindAt()).isEqualTo(1_000_000 + 700_000);
        Lease none = lease(Map.of());
        assertThat(none.expiresAt()).as("Go's one hour").isEqualTo(1_000_000 + 3_600_000);
        Lease disorder = lease(options(51, seconds(100), 58, seconds(90), 59, seconds(200)));
        assertThat(disorder.rebindAt()).as("T2 after the end: its default").isEqualTo(1_000_000 + 87_000);
        assertThat(disorder.renewAt()).as("T1 after T2: its default").isEqualTo(1_000_000 + 50_000);
        Lease forever = lease(options(51, seconds(0xffffffffL)));
        assertThat(forever.infinite()).isTrue();
        assertThat(forever.renewAt()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theAddressTakesItsPrefixFromTheSubnetMask() throws Exception {
        Result result = lease(options(1, MASK_24, 3, new byte[] {10, 0, 0, 1, 10, 0, 0, 2})).result(0);
        assertThat(result.ips()).hasSize(1);
        assertThat(result.ips().get(0).address().toString()).isEqualTo("10.0.0.7/24");
        assertThat(IpText.format(result.ips().get(0).gateway())).as("the first router").isEqualTo("10.0.0.1");
        assertThat(routes(result.routes())).containsExactly("0.0.0.0/0 via 10.0.0.1");
    }

    @Test
    void noMaskOrOneThatIsNotAPrefixFails() {
        assertThatThrownBy(() -> lease(Map.of()).result(0)).isInstanceOfSatisfying(CniException.class,
                e -> assertThat(e.error().msg()).isEqualTo("DHCP option Subnet Mask not found in DHCPACK"));
        assertThatThrownBy(() -> lease(options(1, new byte[] {(byte) 255, 0, (byte) 255, 0})).result(0))
                .hasMessage("DHCP option Subnet Mask 255.0.255.0 is not a prefix");
    }

    @Test
    void classlessRoutesRfc3442ExamplesReplaceTheRouterAndStaticRoutes() throws Exception {
        byte[] option121 = {
            0, 10, 0, 0, 1,                   // 0.0.0.0/0 via 10.0.0.1
            8, 10, 10, 0, 0, 2,               // 10.0.0.0/8
            16, 10, 17, 10, 0, 0, 3,          // 10.17.0.0/16
            24, 10, 27, (byte) 129, 10, 0, 0, 4,       // 10.27.129.0/24
            25, 10, (byte) 229, 0, (byte) 128, 0, 0, 0, 0, // 10.229.0.128/25, on-link
        };
        Lease lease = lease(options(1, MASK_24, 3, new byte[] {10, 0, 0, 99}, 33, new byte[] {10, 5, 0, 0, 10, 0,
            0, 5}, 121, option121));
        List<Route> routes = lease.routes(40);
        assertThat(routes(routes)).containsExactly("0.0.0.0/0 via 10.0.0.1", "10.0.0.0/8 via 10.0.0.2",
                "10.17.0.0/16 via 10.0.0.3", "10.27.129.0/24 via 10.0.0.4", "10.229.0.128/25 via 0.0.0.0");
        assertThat(routes).allMatch(r -> r.priority() == 40);
        assertThat(routes.get(4).scope()).as("on-link").isEqualTo(253);
        assertThat(routes.get(0).scope()).isNull();
    }

    @Test
    void withoutOption121StaticRoutesAreClassfulAndTheRouterIsTheDefault() throws Exception {
        Lease lease = lease(options(1, MASK_24, 3, new byte[] {10, 0, 0, 1}, 33, new byte[] {
            10, 5, 0, 0, 10, 0, 0, 5,                           // class A: /8
            (byte) 172, 16, 0, 0, 10, 0, 0, 6,                  // class B: /16
            (byte) 192, (byte) 168, 7, 0, 10, 0, 0, 7,          // class C: /24
            (byte) 224, 0, 0, 0, 10, 0, 0, 8}));                // class D: none
        assertThat(routes(lease.routes(0))).containsExactly("10.5.0.0/8 via 10.0.0.5", "172.16.0.0/16 via 10.0.0.6",
                "192.168.7.0/24 via 10.0.0.7", "0.0.0.0/0 via 10.0.0.1");
        byte[] malformed121 = {33, 10, 0, 0, 0, 0, 0, 0, 0}; // width 33
        assertThat(routes(lease(options(3, new byte[] {10, 0, 0, 1}, 121, malformed121)).routes(0)))
                .as("a malformed option 121 is ignored").containsExactly("0.0.0.0/0 via 10.0.0.1");
    }

    @Test
    void dnsComesFromServersDomainAndTheRfc3397SearchList() {
        byte[] search = {3, 'e', 'n', 'g', 5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 9, 'm', 'a', 'r', 'k',
            'e', 't', 'i', 'n', 'g', (byte) 0xc0, 0x04};
        Lease lease = lease(options(6, new byte[] {10, 0, 0, 53, 10, 0, 0, 54}, 15, "corp.test\0".getBytes(
                StandardCharsets.US_ASCII), 119, search));
        assertThat(lease.dns().nameservers()).containsExactly("10.0.0.53", "10.0.0.54");
        assertThat(lease.dns().domain()).isEqualTo("corp.test");
        assertThat(lease.dns().search()).containsExactly("eng.apple.com", "marketing.apple.com");
    }

    @Test
    void aSearchListThatPointsForwardOrLoopsStopsWhereItBreaks() {
        assertThat(Lease.searchList(new byte[] {1, 'a', 0, (byte) 0xc0, 0x05, 1, 'b', 0})).as("forward pointer")
                .containsExactly("a");
        assertThat(Lease.searchList(new byte[] {(byte) 0xc0, 0x00})).as("a pointer to itself").isEmpty();
        assertThat(Lease.searchList(new byte[] {5, 'a'})).as("a label past the end").isEmpty();
    }

    static List<String> routes(List<Route> routes) {
        return routes.stream().map(r -> r.dst() + " via " + IpText.format(r.gw())).toList();
    }
}
