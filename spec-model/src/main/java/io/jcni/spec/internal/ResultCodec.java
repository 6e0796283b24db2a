package io.jcni.spec.internal;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.LegacyIpConfig;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Results to and from JSON, per version, in the shape of libcni's types (field names, order, omitted empty fields).
 *
 * <p>Decoding reads the fields the result's version defines and ignores the rest, as a per-version Go type would;
 * invalid values are code 6 (the result cannot be decoded), version problems code 1. Two things libcni 1.1.2 accepts
 * although the spec does not allow them are accepted too, so that a runtime never fails a container a Go runtime
 * starts: an {@code ips[].interface} that is not an index of {@code interfaces} (negative, or past the end) is kept as
 * it is, and a 0.3.x/0.4.0 {@code ips[].version} that contradicts the address is read as the address's family (the
 * model derives it from the address). Each is reported to the caller's warning list when there is one.
 */
public final class ResultCodec {
    private static final int DECODE = CniError.DECODING_FAILURE;

    private ResultCodec() {
    }

    /** libcni groups versions by result type: 0.1.0/0.2.0, 0.3.0-0.4.0, 1.0.0/1.1.0. */
    static int family(CniVersion version) {
        return version.hasLegacyResult() ? 0 : version.before(CniVersion.V1_0_0) ? 1 : 2;
    }

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /**
     * Decodes a result. With {@code expected} (the configuration's version), a missing {@code cniVersion} means
     * {@code expected} (libcni's ParsePrevResult injects it too) and a declared one must be of the same result type
     * as {@code expected}, as libcni's result creators require; the result keeps its declared version. Without
     * {@code expected}, a missing {@code cniVersion} means 0.1.0 (libcni's DecodeVersion).
     */
    public static CniResult decode(JsonObject json, CniVersion expected, String path) throws CniException {
        return decode(json, expected, path, null);
    }

    /**
     * As {@link #decode(JsonObject, CniVersion, String)}, adding to {@code warnings} (when not null) one line for each
     * value accepted only because libcni accepts it (see the class comment).
     */
    public static CniResult decode(JsonObject json, CniVersion expected, String path, List<String> warnings)
            throws CniException {
        ConfigNode root = ConfigNode.at(json, path, DECODE);
        String versionPath = child(path, "cniVersion");
        if (expected != null && !expected.isSupported()) {
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    versionPath + ": unsupported CNI result version \"" + expected + "\"");
        }
        String text = root.string("cniVersion").orElse("");
        CniVersion version = text.isEmpty() ? (expected != null ? expected : CniVersion.V0_1_0)
                : CniVersion.parse(text, versionPath);
        if (!version.isSupported()) {
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    versionPath + ": unsupported CNI result version \"" + text + "\"");
        }
        if (expected != null && family(expected) != family(version)) {
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION, versionPath + ": result version " + version
                    + " does not match the expected version " + expected);
        }
        Dns dns = decodeDns(root.object("dns"));
        if (version.hasLegacyResult()) {
            return new LegacyResult(version, legacyIp(root.object("ip4"), true), legacyIp(root.object("ip6"), false),
                    dns);
        }
        boolean v110 = version.atLeast(CniVersion.V1_1_0);
        List<Interface> interfaces = new ArrayList<>();
        for (ConfigNode node : root.array("interfaces")) {
            interfaces.add(decodeInterface(node, v110));
        }
        List<IpConfig> ips = new ArrayList<>();
        for (ConfigNode node : root.array("ips")) {
            ips.add(decodeIp(node, version.before(CniVersion.V1_0_0), warnings));
        }
        List<Route> routes = new ArrayList<>();
        for (ConfigNode node : root.array("routes")) {
            routes.add(route(node, v110));
        }
        Result result = new Result(version, interfaces, ips, routes, dns);
        if (warnings != null) {
            for (String problem : result.interfaceIndexProblems()) {
                warnings.add(path.isEmpty() ? problem : path + "." + problem);
            }
        }
        return result;
    }

    /** One {@code interfaces[]} member; the 1.1.0 fields only when {@code v110}. */
    public static Interface decodeInterface(ConfigNode node, boolean v110) throws CniException {
        node.asObject();
        return new Interface(node.string("name").orElse(""), node.string("mac").orElse(""),
                v110 ? intField(node, "mtu", 0, Integer.MAX_VALUE, 0) : 0, node.string("sandbox").orElse(""),
                v110 ? node.string("socketPath").orElse("") : "", v110 ? node.string("pciID").orElse("") : "");
    }

    /**
     * One {@code ips[]} member. With {@code withVersion} (0.3.x/0.4.0), a {@code version} that contradicts the address
     * is reported to {@code warnings} (when not null) and read as the address's family; without, it is ignored.
     */
    public static IpConfig decodeIp(ConfigNode node, boolean withVersion, List<String> warnings)
            throws CniException {
        node.asObject();
        IpPrefix address = node.requireField("address").asPrefix();
        if (withVersion) {
            Optional<String> ipVersion = node.string("version");
            String family = address.isIpv4() ? "4" : "6";
            if (ipVersion.isPresent() && !ipVersion.get().equals(family) && warnings != null) {
                warnings.add(child(node.path(), "version") + ": \"" + ipVersion.get()
                        + "\" contradicts the address " + address + ": read as \"" + family + "\"");
            }
        }
        // Any int, as libcni's *int: an index outside interfaces is passed on, not refused (see decode).
        Optional<Long> index = node.integer("interface", Integer.MIN_VALUE, Integer.MAX_VALUE);
        return new IpConfig(index.isEmpty() ? null : index.get().intValue(), address, node.ip("gateway").orElse(null));
    }

    private static int intField(ConfigNode node, String key, int min, int max, int absent) throws CniException {
        Integer value = intOrNull(node, key, min, max);
        return value == null ? absent : value;
    }

    /** An optional integer member, without lambdas (start-up). */
    static Integer intOrNull(ConfigNode node, String key, int min, int max) throws CniException {
        Optional<Long> value = node.integer(key, min, max);
        return value.isEmpty() ? null : value.get().intValue();
    }

    /** One {@code routes[]} member; the 1.1.0 attributes only when {@code v110}. */
    public static Route route(ConfigNode node, boolean v110) throws CniException {
        node.asObject();
        IpPrefix dst = node.requireField("dst").asPrefix();
        InetAddress gw = node.ip("gw").orElse(null);
        if (!v110) {
            return new Route(dst, gw);
        }
        return new Route(dst, gw, intField(node, "mtu", 0, Integer.MAX_VALUE, 0),
                intField(node, "advmss", 0, Integer.MAX_VALUE, 0), intField(node, "priority", 0, Integer.MAX_VALUE, 0),
                intOrNull(node, "table", 0, Integer.MAX_VALUE), intOrNull(node, "scope", 0, 255));
    }

    private static LegacyIpConfig legacyIp(Optional<ConfigNode> field, boolean ipv4) throws CniException {
        if (field.isEmpty()) {
            return null;
        }
        ConfigNode node = field.get();
        IpPrefix ip = node.requireField("ip").asPrefix();
        if (ip.isIpv4() != ipv4) {
            throw new CniException(DECODE, child(node.path(), "ip") + ": expected an " + (ipv4 ? "IPv4" : "IPv6")
                    + " address, got " + ip);
        }
        List<Route> routes = new ArrayList<>();
        for (ConfigNode route : node.array("routes")) {
            routes.add(route(route, false));
        }
        return new LegacyIpConfig(ip, node.ip("gateway").orElse(null), routes);
    }

    /** An {@code ip4} or {@code ip6} member on its own, of either family. */
    public static LegacyIpConfig decodeLegacyIp(ConfigNode node) throws CniException {
        node.asObject();
        IpPrefix ip = node.requireField("ip").asPrefix();
        List<Route> routes = new ArrayList<>();
        for (ConfigNode route : node.array("routes")) {
            routes.add(route(route, false));
        }
        return new LegacyIpConfig(ip, node.ip("gateway").orElse(null), routes);
    }

    /** {@code dns} of a configuration or result ({@link Dns#EMPTY} when absent). */
    public static Dns decodeDns(Optional<ConfigNode> field) throws CniException {
        if (field.isEmpty()) {
            return Dns.EMPTY;
        }
        ConfigNode node = field.get();
        return new Dns(node.stringList("nameservers"), node.string("domain").orElse(""), node.stringList("search"),
                node.stringList("options"));
    }

    // ------------------------------------------------------------------------------------------ encoding

    /**
     * The JSON libcni prints for a result of its version. {@code dns} is always present (as {@code {}} when empty)
     * before 1.0.0, where Go's encoding/json cannot omit a struct; from 1.0.0 on it is omitted when empty, as libcni
     * 1.2+ does (Debian's libcni 1.1.2 still prints {@code "dns": {}}).
     */
    public static JsonObject toJson(CniResult result) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        out.put("cniVersion", Json.of(result.cniVersion().toString()));
        if (result instanceof LegacyResult legacy) {
            if (legacy.ip4() != null) {
                out.put("ip4", legacyIp(legacy.ip4()));
            }
            if (legacy.ip6() != null) {
                out.put("ip6", legacyIp(legacy.ip6()));
            }
            out.put("dns", dns(legacy.dns()));
        } else if (result instanceof Result modern) {
            CniVersion version = modern.cniVersion();
            boolean v110 = version.atLeast(CniVersion.V1_1_0);
            if (!modern.interfaces().isEmpty()) {
                List<Json> list = new ArrayList<>();
                for (Interface i : modern.interfaces()) {
                    list.add(iface(i, v110));
                }
                out.put("interfaces", new JsonArray(list));
            }
            if (!modern.ips().isEmpty()) {
                List<Json> list = new ArrayList<>();
                for (IpConfig ip : modern.ips()) {
                    list.add(ip(ip, version.before(CniVersion.V1_0_0)));
                }
                out.put("ips", new JsonArray(list));
            }
            if (!modern.routes().isEmpty()) {
                out.put("routes", routes(modern.routes(), v110));
            }
            if (version.before(CniVersion.V1_0_0) || !modern.dns().isEmpty()) {
                out.put("dns", dns(modern.dns()));
            }
        }
        return JsonObject.of(out);
    }

    /** An {@code ip4}/{@code ip6} member as libcni writes it. */
    public static JsonObject legacyIp(LegacyIpConfig ip) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        out.put("ip", Json.of(ip.ip().toString()));
        putAddress(out, "gateway", ip.gateway());
        if (!ip.routes().isEmpty()) {
            out.put("routes", routes(ip.routes(), false));
        }
        return JsonObject.of(out);
    }

    /** An {@code interfaces[]} member as libcni writes it; the 1.1.0 fields only when {@code v110}. */
    public static JsonObject iface(Interface i, boolean v110) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        out.put("name", Json.of(i.name()));
        putString(out, "mac", i.mac());
        if (v110 && i.mtu() != 0) {
            out.put("mtu", JsonNumber.of(i.mtu()));
        }
        putString(out, "sandbox", i.sandbox());
        if (v110) {
            putString(out, "socketPath", i.socketPath());
            putString(out, "pciID", i.pciID());
        }
        return JsonObject.of(out);
    }

    /** An {@code ips[]} member as libcni writes it; {@code version} (from the address) only when {@code withVersion}. */
    public static JsonObject ip(IpConfig ip, boolean withVersion) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        if (withVersion) {
            out.put("version", Json.of(ip.version()));
        }
        if (ip.interfaceIndex() != null) {
            out.put("interface", JsonNumber.of(ip.interfaceIndex()));
        }
        out.put("address", Json.of(ip.address().toString()));
        putAddress(out, "gateway", ip.gateway());
        return JsonObject.of(out);
    }

    private static JsonArray routes(List<Route> routes, boolean v110) {
        List<Json> list = new ArrayList<>(routes.size());
        for (Route route : routes) {
            list.add(route(route, v110));
        }
        return new JsonArray(list);
    }

    /** A {@code routes[]} member as libcni writes it; the 1.1.0 attributes only when {@code v110}. */
    public static JsonObject route(Route route, boolean v110) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        out.put("dst", Json.of(route.dst().toString()));
        putAddress(out, "gw", route.gw());
        if (v110) {
            putPositive(out, "mtu", route.mtu());
            putPositive(out, "advmss", route.advmss());
            putPositive(out, "priority", route.priority());
            if (route.table() != null) {
                out.put("table", JsonNumber.of(route.table()));
            }
            if (route.scope() != null) {
                out.put("scope", JsonNumber.of(route.scope()));
            }
        }
        return JsonObject.of(out);
    }

    /** {@code dns} as libcni writes it: each member omitted when empty. */
    public static JsonObject dns(Dns dns) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        putStrings(out, "nameservers", dns.nameservers());
        putString(out, "domain", dns.domain());
        putStrings(out, "search", dns.search());
        putStrings(out, "options", dns.options());
        return JsonObject.of(out);
    }

    private static void putString(LinkedHashMap<String, Json> out, String key, String value) {
        if (!value.isEmpty()) {
            out.put(key, Json.of(value));
        }
    }

    private static void putStrings(LinkedHashMap<String, Json> out, String key, List<String> values) {
        if (!values.isEmpty()) {
            out.put(key, strings(values));
        }
    }

    /** A JSON array of strings. */
    static JsonArray strings(List<String> values) {
        Json[] elements = new Json[values.size()];
        for (int i = 0; i < elements.length; i++) {
            elements[i] = Json.of(values.get(i));
        }
        return new JsonArray(List.of(elements));
    }

    private static void putPositive(LinkedHashMap<String, Json> out, String key, int value) {
        if (value != 0) {
            out.put(key, JsonNumber.of(value));
        }
    }

    private static void putAddress(LinkedHashMap<String, Json> out, String key, InetAddress address) {
        if (address != null) {
            out.put(key, Json.of(IpText.format(address)));
        }
    }
}
