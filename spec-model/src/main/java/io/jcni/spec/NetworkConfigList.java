package io.jcni.spec;

import io.jcni.spec.internal.JsonCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A network configuration (a {@code .conflist}): the network's name and version, its flags, and the plugins to run
 * in order. Immutable; keeps the document ({@link #json()}) and the bytes it was read from ({@link #bytes()}).
 *
 * <p>Decoded as libcni's {@code NetworkConfFromBytes} decodes it, the top level as a map (its keys exactly as written
 * here), each plugin as libcni's {@code NetConf} struct (keys in any case: {@link PluginConfig}):
 * <ul>
 * <li>{@code name} is required and must follow the network-name rule (code 7; libcni checks the rule later, at ADD);
 * </li>
 * <li>{@code cniVersion} may be absent (0.1.0). With {@code cniVersions}, the effective {@link #cniVersion()} is the
 * highest version among both that jcni implements (spec 1.1.0: "pick the highest supported"); libcni instead takes
 * the highest not above its own newest version, supported or not. With none supported, the declared
 * {@code cniVersion} stays. Malformed versions are code 1;</li>
 * <li>{@code disableCheck}, {@code disableGC}, {@code loadOnlyInlinedPlugins} accept a boolean or the strings
 * "true"/"false" in any case; another string is code 7, another type code 6;</li>
 * <li>{@code plugins}, when present, must be a non-empty array of plugin configurations (errors name
 * {@code plugins[i]}); when absent the list is empty, for the runtime to fill from {@code <dir>/<name>/*.conf} unless
 * {@code loadOnlyInlinedPlugins} is true, in which case it is an error (code 7).</li>
 * </ul>
 */
public final class NetworkConfigList {
    private final JsonObject json;
    private final byte[] bytes;
    private final String name;
    private final CniVersion declaredCniVersion;
    private final List<CniVersion> cniVersions;
    private final CniVersion cniVersion;
    private final boolean disableCheck;
    private final boolean disableGC;
    private final boolean loadOnlyInlinedPlugins;
    private final List<PluginConfig> plugins;

    private NetworkConfigList(JsonObject json, byte[] bytes) throws CniException {
        this.json = json;
        this.bytes = bytes;
        ConfigNode node = ConfigNode.root(json);
        Optional<ConfigNode> nameNode = node.member("name");
        if (nameNode.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "name: missing network name");
        }
        this.name = nameNode.get().asString();
        if (!CniNames.isValidName(name)) {
            throw name.isEmpty() ? nameNode.get().invalid("missing network name")
                    : nameNode.get().invalid("invalid characters found in network name", name);
        }
        Optional<ConfigNode> versionNode = node.member("cniVersion");
        this.declaredCniVersion = versionNode.isEmpty() ? CniVersion.V0_1_0
                : CniVersion.parse(versionNode.get().asString(), "cniVersion");
        List<CniVersion> versions = new ArrayList<>();
        Optional<ConfigNode> versionsNode = node.member("cniVersions");
        for (ConfigNode element : versionsNode.isEmpty() ? List.<ConfigNode>of() : versionsNode.get().elements()) {
            versions.add(CniVersion.parse(element.asString(), element.path()));
        }
        this.cniVersions = List.copyOf(versions);
        this.cniVersion = effectiveVersion(versionNode.isPresent(), declaredCniVersion, cniVersions,
                versionsNode.isPresent());
        this.disableCheck = flag(node, "disableCheck");
        this.disableGC = flag(node, "disableGC");
        this.loadOnlyInlinedPlugins = flag(node, "loadOnlyInlinedPlugins");
        Optional<ConfigNode> pluginsNode = node.member("plugins");
        List<PluginConfig> list = new ArrayList<>();
        if (pluginsNode.isEmpty()) {
            if (loadOnlyInlinedPlugins) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                        "plugins: missing, and loadOnlyInlinedPlugins is true");
            }
        } else {
            List<ConfigNode> elements = pluginsNode.get().elements();
            if (elements.isEmpty()) {
                throw pluginsNode.get().invalid("no plugins in list");
            }
            for (ConfigNode element : elements) {
                list.add(PluginConfig.of(element.asObject(), element.path()));
            }
        }
        this.plugins = List.copyOf(list);
    }

    private static CniVersion effectiveVersion(boolean declared, CniVersion cniVersion, List<CniVersion> cniVersions,
            boolean hasList) {
        if (!hasList) {
            return cniVersion;
        }
        List<CniVersion> candidates = new ArrayList<>(cniVersions);
        if (declared) {
            candidates.add(cniVersion);
        }
        return CniVersion.highestSupported(candidates).orElse(cniVersion);
    }

    private static boolean flag(ConfigNode node, String key) throws CniException {
        Optional<ConfigNode> field = node.member(key);
        if (field.isEmpty()) {
            return false;
        }
        if (field.get().json() instanceof JsonString string) {
            return switch (string.value().toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw field.get().invalid("invalid value \"" + string.value() + "\"",
                        "expected true or false");
            };
        }
        return field.get().asBoolean();
    }

    /** A network configuration from a decoded document; {@link #bytes()} will be its compact encoding. */
    public static NetworkConfigList of(JsonObject json) throws CniException {
        return new NetworkConfigList(json, null);
    }

    /** Decodes a {@code .conflist} document, keeping {@code bytes} as {@link #bytes()}. */
    public static NetworkConfigList decode(byte[] bytes) throws CniException {
        Json json = JsonCodec.parse(bytes);
        if (!(json instanceof JsonObject object)) {
            throw new CniException(CniError.DECODING_FAILURE,
                    "network configuration list: expected object, got " + json.typeName());
        }
        return new NetworkConfigList(object, bytes.clone());
    }

    /**
     * Wraps a single-network configuration ({@code .conf}) as a list of one, as libcni's {@code ConfListFromConf}
     * does: {@code {"cniVersion": <conf's cniVersion or "">, "name": <conf's name>, "plugins": [<conf>]}}; the plugin
     * keeps its own {@code name} and {@code cniVersion} keys.
     */
    public static NetworkConfigList fromConf(PluginConfig conf) throws CniException {
        String version = conf.json().field("cniVersion").orElse(Json.NULL) instanceof JsonString v ? v.value() : "";
        JsonObject list = JsonObject.of("cniVersion", Json.of(version), "name", Json.of(conf.name()), "plugins",
                Json.array(conf.json()));
        return new NetworkConfigList(list, null);
    }

    /** The document, unknown fields and key order included. */
    public JsonObject json() {
        return json;
    }

    /** The bytes this list was decoded from, or its compact encoding if it was built in memory. */
    public byte[] bytes() {
        return bytes != null ? bytes.clone() : JsonCodec.bytes(false, json);
    }

    public String name() {
        return name;
    }

    /** The version to run the plugins with: see the class comment for how {@code cniVersions} is resolved. */
    public CniVersion cniVersion() {
        return cniVersion;
    }

    /** The {@code cniVersion} key as declared (0.1.0 when absent). */
    public CniVersion declaredCniVersion() {
        return declaredCniVersion;
    }

    /** The {@code cniVersions} key (1.1.0), as declared. */
    public List<CniVersion> cniVersions() {
        return cniVersions;
    }

    public boolean disableCheck() {
        return disableCheck;
    }

    public boolean disableGC() {
        return disableGC;
    }

    public boolean loadOnlyInlinedPlugins() {
        return loadOnlyInlinedPlugins;
    }

    /** The plugins in execution order (ADD order; DEL runs them in reverse). */
    public List<PluginConfig> plugins() {
        return plugins;
    }

    /**
     * This list with {@code more} plugins appended, as the runtime does with {@code <dir>/<name>/*.conf} files when
     * {@code loadOnlyInlinedPlugins} is false. {@link #json()} gets them too; {@link #bytes()} stays the original.
     */
    public NetworkConfigList withAdditionalPlugins(List<PluginConfig> more) throws CniException {
        if (more.isEmpty()) {
            return this;
        }
        List<Json> elements = new ArrayList<>();
        if (json.members().get("plugins") instanceof JsonArray existing) {
            elements.addAll(existing.elements());
        }
        for (PluginConfig plugin : more) {
            elements.add(plugin.json());
        }
        return new NetworkConfigList(json.with("plugins", new JsonArray(elements)), bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof NetworkConfigList list && list.json.equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
