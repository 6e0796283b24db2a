package io.jcni.netlink.vectors;

import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_LEN;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jcni.netlink.Address;
import io.jcni.netlink.AddressFlag;
import io.jcni.netlink.Cidrs;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.MacvlanMode;
import io.jcni.netlink.Neighbor;
import io.jcni.netlink.NextHop;
import io.jcni.netlink.Route;
import io.jcni.netlink.internal.rtnl.AddressCodec;
import io.jcni.netlink.internal.rtnl.LinkCodec;
import io.jcni.netlink.internal.rtnl.NeighborCodec;
import io.jcni.netlink.internal.rtnl.RouteCodec;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Decodes real kernel replies recorded by {@link CaptureVectors} (Linux 6.18) and compares every decoded field with
 * iproute2's JSON of the same state, recorded at the same moment. Runs without root or a kernel.
 */
class CapturedRepliesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Map<String, Integer> indexByName = new HashMap<>();

    static List<ByteBuffer> datagrams(String name) throws IOException {
        List<ByteBuffer> out = new ArrayList<>();
        for (String line : resource(name + ".hex").split("\n")) {
            if (!line.isBlank()) {
                out.add(ByteBuffer.wrap(HexFormat.of().parseHex(line.strip())).order(ByteOrder.nativeOrder()));
            }
        }
        return out;
    }

    static String resource(String name) throws IOException {
        try (InputStream in = Objects.requireNonNull(CapturedRepliesTest.class.getResourceAsStream(name), name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Decodes every data message of the recorded datagrams with {@code decoder}, dropping nulls. */
    static <T> List<T> decodeAll(String name, Channel.Decoder<T> decoder) throws IOException {
        List<T> out = new ArrayList<>();
        int done = 0;
        for (ByteBuffer b : datagrams(name)) {
            for (int off = 0; off + NLMSGHDR_SIZE <= b.limit(); ) {
                int len = b.getInt(off + NLMSG_LEN);
                int type = Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE));
                if (type == NetlinkH.NLMSG_DONE) {
                    done++;
                } else {
                    T v = decoder.decode(b, off, len);
                    if (v != null) {
                        out.add(v);
                    }
                }
                off += MessageWriter.align(len);
            }
        }
        assertThat(done).as("the recording of %s ends with NLMSG_DONE", name).isEqualTo(1);
        return out;
    }

    @BeforeEach
    void names() throws IOException {
        for (JsonNode l : JSON.readTree(resource("links.json"))) {
            indexByName.put(l.get("ifname").asText(), l.get("ifindex").asInt());
        }
    }

    @Test
    void linksMatchIpDetails() throws IOException {
        List<Link> links = decodeAll("links", LinkCodec::decode);
        JsonNode ip = JSON.readTree(resource("links.json"));
        assertThat(links).hasSize(ip.size());
        for (JsonNode j : ip) {
            Link l = links.stream().filter(x -> x.index() == j.get("ifindex").asInt()).findFirst().orElseThrow();
            assertThat(l.name()).isEqualTo(j.get("ifname").asText());
            assertThat(l.mtu()).isEqualTo(j.get("mtu").asInt());
            assertThat(l.txQueueLen()).isEqualTo(j.path("txqlen").asInt(0));
            assertThat(l.address()).isEqualTo(MacAddress.parse(j.get("address").asText()));
            assertThat(l.broadcast()).isEqualTo(MacAddress.parse(j.get("broadcast").asText()));
            assertThat(l.operState().name()).isEqualTo(j.get("operstate").asText());
            assertThat(l.promiscuity()).isEqualTo(j.get("promiscuity").asInt());
            assertThat(l.alias()).isEqualTo(j.path("ifalias").asText(""));
            List<String> flags = j.get("flags").valueStream().map(JsonNode::asText).toList();
            assertThat(l.isUp()).isEqualTo(flags.contains("UP"));
            assertThat(l.isLowerUp()).isEqualTo(flags.contains("LOWER_UP"));
            assertThat(l.isLoopback()).isEqualTo(flags.contains("LOOPBACK"));
            assertThat(l.masterIndex()).isEqualTo(j.has("master") ? indexByName.get(j.get("master").asText()) : 0);
            if (j.has("link")) {
                assertThat(l.parentIndex()).isEqualTo(indexByName.get(j.get("link").asText()));
            }
            JsonNode info = j.path("linkinfo");
            assertThat(l.kind()).isEqualTo(info.path("info_kind").asText(""));
            switch (l.info()) {
                case LinkInfo.Macvlan m -> assertThat(m.mode())
                        .isEqualTo(MacvlanMode.valueOf(info.get("info_data").get("mode").asText()
                                .toUpperCase(Locale.ROOT)));
                case LinkInfo.Bridge b -> {
                    assertThat(b.vlanFiltering()).isEqualTo(info.get("info_data").path("vlan_filtering").asInt() == 1);
                    assertThat(b.stpState()).isEqualTo(info.get("info_data").get("stp_state").asInt());
                }
                default -> { }
            }
            if (info.path("info_slave_kind").asText("").equals("bridge")) {
                JsonNode slave = info.get("info_slave_data");
                assertThat(l.bridgePort().hairpin()).isEqualTo(slave.get("hairpin").asBoolean());
                assertThat(l.bridgePort().isolated()).isEqualTo(slave.get("isolated").asBoolean());
                assertThat(l.bridgePort().learning()).isEqualTo(slave.get("learning").asBoolean());
                assertThat(l.bridgePort().cost()).isEqualTo(slave.get("cost").asInt());
                assertThat(l.bridgePort().priority()).isEqualTo(slave.get("priority").asInt());
            } else {
                assertThat(l.bridgePort()).isNull();
            }
        }
        assertThat(links).extracting(Link::kind).contains("veth", "bridge", "macvlan", "");
        assertThat(links).filteredOn(l -> l.name().equals("v1")).singleElement()
                .satisfies(l -> assertThat(l.bridgePort().hairpin()).isTrue());
    }

    @Test
    void addressesMatchIp() throws IOException {
        List<Address> addresses = decodeAll("addresses", AddressCodec::decode);
        int count = 0;
        for (JsonNode link : JSON.readTree(resource("addresses.json"))) {
            for (JsonNode j : link.get("addr_info")) {
                count++;
                InetAddress local = InetAddress.ofLiteral(j.get("local").asText());
                Address a = addresses.stream().filter(x -> x.address().equals(local)
                        && x.index() == link.get("ifindex").asInt()).findFirst().orElseThrow();
                assertThat(a.prefixLength()).isEqualTo(j.get("prefixlen").asInt());
                assertThat(a.scope().toString()).isEqualTo(j.get("scope").asText());
                assertThat(a.validLifetime()).isEqualTo(j.get("valid_life_time").asLong());
                assertThat(a.preferredLifetime()).isEqualTo(j.get("preferred_life_time").asLong());
                assertThat(a.broadcast()).isEqualTo(j.has("broadcast")
                        ? InetAddress.ofLiteral(j.get("broadcast").asText()) : null);
                assertThat(a.peer()).isEqualTo(j.has("address") ? InetAddress.ofLiteral(j.get("address").asText())
                        : null);
                if (j.has("label")) {
                    assertThat(a.label()).isEqualTo(j.get("label").asText());
                }
                assertThat(a.flags().contains(AddressFlag.NODAD)).isEqualTo(j.path("nodad").asBoolean());
                assertThat(a.flags().contains(AddressFlag.NOPREFIXROUTE))
                        .isEqualTo(j.path("noprefixroute").asBoolean());
                assertThat(a.isTentative()).isEqualTo(j.path("tentative").asBoolean());
            }
        }
        assertThat(addresses).hasSize(count);
        assertThat(addresses).anyMatch(a -> a.peer() != null && a.label().equals("v0:p"));
    }

    private static final Map<String, Integer> TYPES = Map.of("unicast", Route.TYPE_UNICAST, "local",
            Route.TYPE_LOCAL, "broadcast", 3, "multicast", 5, "anycast", 4);
    private static final Map<String, Integer> PROTOCOLS = Map.of("kernel", Route.PROTOCOL_KERNEL, "boot",
            Route.PROTOCOL_BOOT, "static", Route.PROTOCOL_STATIC, "ra", 9);

    private void checkRoutes(List<Route> routes, JsonNode ip) {
        assertThat(routes).hasSize(ip.size());
        for (JsonNode j : ip) {
            String dst = j.get("dst").asText();
            int table = switch (j.path("table").asText("main")) {
                case "main" -> Route.TABLE_MAIN;
                case "local" -> Route.TABLE_LOCAL;
                default -> j.get("table").asInt();
            };
            int type = TYPES.get(j.path("type").asText("unicast"));
            Route r = routes.stream().filter(x -> x.table() == table && x.type() == type
                    && (dst.equals("default") ? x.isDefault() : Cidrs.of(x).equals(Cidrs.canonical(dst.contains("/") ? dst : dst + "/" + x.family().bits())))
                    && (!j.has("dev") || x.outIndex() == indexByName.get(j.get("dev").asText())))
                    .findFirst().orElseThrow(() -> new AssertionError("no decoded route for " + j));
            assertThat(r.protocol()).as("%s", j).isEqualTo(PROTOCOLS.get(j.path("protocol").asText("boot")));
            assertThat(r.scope().toString()).as("%s", j).isEqualTo(j.path("scope").asText("global"));
            assertThat(r.gateway()).isEqualTo(j.has("gateway") ? InetAddress.ofLiteral(j.get("gateway").asText())
                    : null);
            assertThat(r.source()).isEqualTo(j.has("prefsrc") ? InetAddress.ofLiteral(j.get("prefsrc").asText())
                    : null);
            assertThat(r.metric()).as("%s", j).isEqualTo(j.path("metric").asInt(0));
            JsonNode metrics = j.path("metrics").path(0);
            assertThat(r.mtu()).isEqualTo(metrics.path("mtu").asInt(0));
            assertThat(r.advmss()).isEqualTo(metrics.path("advmss").asInt(0));
            JsonNode hops = j.path("nexthops");
            assertThat(r.nextHops()).hasSize(hops.size());
            for (int i = 0; i < hops.size(); i++) {
                NextHop h = r.nextHops().get(i);
                assertThat(h.gateway()).isEqualTo(InetAddress.ofLiteral(hops.get(i).get("gateway").asText()));
                assertThat(h.index()).isEqualTo(indexByName.get(hops.get(i).get("dev").asText()));
                assertThat(h.weight()).isEqualTo(hops.get(i).get("weight").asInt());
            }
        }
    }

    @Test
    void routesOfAllTablesAndFamiliesMatchIp() throws IOException {
        List<Route> routes = decodeAll("routes", RouteCodec::decode);
        checkRoutes(routes, JSON.readTree(resource("routes.json")));
        assertThat(routes).anyMatch(r -> r.nextHops().size() == 2);
        assertThat(routes).anyMatch(r -> r.mtu() == 1300 && r.advmss() == 1200 && r.table() == 100);
    }

    @Test
    void ipv6RoutesOfAllTablesMatchIp() throws IOException {
        checkRoutes(decodeAll("routes6", RouteCodec::decode), JSON.readTree(resource("routes6.json")));
    }

    @Test
    void neighboursMatchIp() throws IOException {
        List<Neighbor> all = decodeAll("neighbors", NeighborCodec::decode);
        assertThat(all).anyMatch(n -> n.state() == io.jcni.netlink.NeighborState.NOARP);
        // ip neigh show leaves NOARP entries (multicast mappings) out unless asked; we return them all
        List<Neighbor> neighbors = all.stream().filter(n -> n.state() != io.jcni.netlink.NeighborState.NOARP)
                .toList();
        JsonNode ip = JSON.readTree(resource("neighbors.json"));
        assertThat(neighbors).hasSize(ip.size());
        for (JsonNode j : ip) {
            Neighbor n = neighbors.stream().filter(x -> x.address().equals(InetAddress.ofLiteral(j.get("dst")
                    .asText()))).findFirst().orElseThrow();
            assertThat(n.index()).isEqualTo(indexByName.get(j.get("dev").asText()));
            assertThat(n.mac()).isEqualTo(j.has("lladdr") ? MacAddress.parse(j.get("lladdr").asText()) : null);
            assertThat(n.state().name()).isEqualTo(j.get("state").get(0).asText());
        }
    }
}
