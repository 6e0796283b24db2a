package io.jcni.spec;

import io.jcni.spec.internal.ResultCodec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One plugin configuration object: an element of a conflist's {@code plugins}, a single-network {@code .conf}, or
 * the execution configuration a plugin reads on stdin. Immutable.
 *
 * <p>The whole object is kept as {@link #json()}: unknown fields and key order pass through unchanged. The well-known
 * fields are decoded at construction, so a bad value fails early with a message naming it:
 * <ul>
 * <li>{@code type} is required and must be a bare file name (code 7);</li>
 * <li>{@code cniVersion} must be {@code MAJOR.MINOR.PATCH} when present (code 1); absent means 0.1.0;</li>
 * <li>{@code name}, when present, must follow the network-name rule (code 7): it becomes a path component in plugins
 * such as host-local, so a name like {@code ../x} is refused here rather than trusted;</li>
 * <li>{@code prevResult}, when present, must decode as a result of the configuration's version (code 6, or 1 for a
 * version of another result type);</li>
 * <li>wrong JSON types are code 6, {@code null} counts as absent.</li>
 * </ul>
 * The with-ers return new objects and keep key order: a replaced key stays where it was, a new key is appended.
 */
public final class PluginConfig {
    /** GC input (1.1.0): the attachments that are still valid. */
    public static final String VALID_ATTACHMENTS = "cni.dev/valid-attachments";
    /** The key the 1.1.0 spec text first used for {@link #VALID_ATTACHMENTS}; libcni sends both. */
    public static final String LEGACY_ATTACHMENTS = "cni.dev/attachments";

    private final JsonObject json;
    private final String path;
    private final CniVersion cniVersion;
    private final String name;
    private final String type;
    private final Map<String, Boolean> capabilities;
    private final JsonObject ipam;
    private final String ipamType;
    private final Dns dns;
    private final JsonObject runtimeConfig;
    private final JsonObject args;
    private final JsonObject rawPrevResult;
    private final CniResult prevResult;
    private final List<GcAttachment> validAttachments;

    private PluginConfig(JsonObject json, String path) throws CniException {
        this.json = json;
        this.path = path;
        ConfigNode node = ConfigNode.at(json, path);
        Optional<ConfigNode> version = node.field("cniVersion");
        this.cniVersion = version.isEmpty() ? CniVersion.V0_1_0
                : CniVersion.parse(version.get().asString(), version.get().path());
        Optional<ConfigNode> nameNode = node.field("name");
        this.name = nameNode.isEmpty() ? "" : nameNode.get().asString();
        if (!name.isEmpty() && !CniNames.isValidName(name)) {
            throw nameNode.get().invalid("invalid characters found in network name", name);
        }
        Optional<ConfigNode> typeNode = node.field("type");
        String typePath = path.isEmpty() ? "type" : path + ".type";
        this.type = CniNames.requirePluginType(typeNode.isEmpty() ? "" : typeNode.get().asString(), typePath);
        Map<String, Boolean> caps = new LinkedHashMap<>();
        Optional<ConfigNode> capabilitiesNode = node.object("capabilities");
        if (capabilitiesNode.isPresent()) {
            for (Map.Entry<String, ConfigNode> capability : capabilitiesNode.get().entries()) {
                ConfigNode value = capability.getValue();
                caps.put(capability.getKey(), !value.isNull() && value.asBoolean());
            }
        }
        this.capabilities = Collections.unmodifiableMap(caps);
        Optional<ConfigNode> ipamNode = node.object("ipam");
        this.ipam = ipamNode.isEmpty() ? null : ipamNode.get().asObject();
        Optional<ConfigNode> ipamTypeNode = ipamNode.isEmpty() ? Optional.empty() : ipamNode.get().field("type");
        String ipamTypeText = ipamTypeNode.isEmpty() ? "" : ipamTypeNode.get().asString();
        this.ipamType = ipamTypeText.isEmpty() ? "" : CniNames.requirePluginType(ipamTypeText,
                ipamTypeNode.get().path());
        this.dns = ResultCodec.decodeDns(node.object("dns"));
        this.runtimeConfig = objectOrNull(node, "runtimeConfig");
        this.args = objectOrNull(node, "args");
        this.rawPrevResult = objectOrNull(node, "prevResult");
        this.prevResult = rawPrevResult == null ? null
                : ResultCodec.decode(rawPrevResult, cniVersion, path.isEmpty() ? "prevResult" : path + ".prevResult");
        this.validAttachments = decodeAttachments(node);
    }

    /** A plugin configuration from a JSON object; see the class comment for what is checked. */
    public static PluginConfig of(JsonObject json) throws CniException {
        return new PluginConfig(Objects.requireNonNull(json, "json"), "");
    }

    /** As {@link #of(JsonObject)}, with error paths prefixed by {@code path} (e.g. {@code plugins[2]}). */
    static PluginConfig of(JsonObject json, String path) throws CniException {
        return new PluginConfig(json, path);
    }

    private static JsonObject objectOrNull(ConfigNode node, String key) throws CniException {
        Optional<ConfigNode> field = node.object(key);
        return field.isEmpty() ? null : field.get().asObject();
    }

    private static List<GcAttachment> decodeAttachments(ConfigNode node) throws CniException {
        Optional<ConfigNode> list = node.field(VALID_ATTACHMENTS);
        if (list.isEmpty()) {
            list = node.field(LEGACY_ATTACHMENTS);
        }
        if (list.isEmpty()) {
            return List.of();
        }
        List<GcAttachment> attachments = new ArrayList<>();
        for (ConfigNode element : list.get().elements()) {
            element.asObject();
            attachments.add(new GcAttachment(element.string("containerID").orElse(""),
                    element.string("ifname").orElse("")));
        }
        return List.copyOf(attachments);
    }

    // ------------------------------------------------------------------------------------------ accessors

    /** The whole object, unknown fields and key order included. */
    public JsonObject json() {
        return json;
    }

    /** {@code cniVersion}; 0.1.0 when absent (as libcni reads it). */
    public CniVersion cniVersion() {
        return cniVersion;
    }

    /** True if the object has a non-null {@code cniVersion} (in any case, as Go's struct decoding reads it). */
    public boolean hasCniVersion() {
        return json.hasField("cniVersion");
    }

    /** {@code name}, or "" when absent (plugins inside a conflist usually have none). */
    public String name() {
        return name;
    }

    /** {@code name}; missing is code 7 ("missing network name", as libcni's skel says). */
    public String requireName() throws CniException {
        return CniNames.requireNetworkName(name);
    }

    /** {@code type}: the plugin executable's file name. */
    public String type() {
        return type;
    }

    /** {@code capabilities} in document order; a null value counts as false. */
    public Map<String, Boolean> capabilities() {
        return capabilities;
    }

    /** The names of the capabilities set to true. */
    public List<String> enabledCapabilities() {
        List<String> enabled = new ArrayList<>();
        for (Map.Entry<String, Boolean> capability : capabilities.entrySet()) {
            if (capability.getValue()) {
                enabled.add(capability.getKey());
            }
        }
        return List.copyOf(enabled);
    }

    /** {@code ipam}, the IPAM plugin's configuration object. */
    public Optional<JsonObject> ipam() {
        return Optional.ofNullable(ipam);
    }

    /** {@code ipam.type}, or "" when there is no IPAM plugin. */
    public String ipamType() {
        return ipamType;
    }

    /** {@code dns}; {@link Dns#EMPTY} when absent. */
    public Dns dns() {
        return dns;
    }

    /** {@code runtimeConfig}: the capability arguments the runtime inserted. */
    public Optional<JsonObject> runtimeConfig() {
        return Optional.ofNullable(runtimeConfig);
    }

    /** {@code args} (conventions such as {@code args.cni.ips}). */
    public Optional<JsonObject> args() {
        return Optional.ofNullable(args);
    }

    /** {@code prevResult} as JSON. */
    public Optional<JsonObject> rawPrevResult() {
        return Optional.ofNullable(rawPrevResult);
    }

    /**
     * {@code prevResult}, decoded in the configuration's version: a missing {@code cniVersion} in it means the
     * configuration's (as libcni's ParsePrevResult injects), a declared one must be of the same result type.
     */
    public Optional<CniResult> prevResult() {
        return Optional.ofNullable(prevResult);
    }

    /** GC input: {@code cni.dev/valid-attachments}, or the legacy {@code cni.dev/attachments} if only that is set. */
    public List<GcAttachment> validAttachments() {
        return validAttachments;
    }

    /** Any member by key. */
    public Optional<Json> get(String key) {
        return json.get(key);
    }

    /** A reader for plugin-specific fields whose errors name the path ({@code ipam.ranges[0][0].subnet}). */
    public ConfigNode node() {
        return ConfigNode.at(json, path);
    }

    // ------------------------------------------------------------------------------------------ with-ers

    /** This configuration with {@code key} set (checked again as a whole: setting {@code type} is validated). */
    public PluginConfig with(String key, Json value) throws CniException {
        return new PluginConfig(json.with(key, value), path);
    }

    /** This configuration without {@code key} (removing {@code type} fails: it is required). */
    public PluginConfig without(String key) throws CniException {
        return new PluginConfig(json.without(key), path);
    }

    /** Sets {@code name}, as the runtime does from the network configuration. */
    public PluginConfig withName(String networkName) throws CniException {
        return with("name", Json.of(CniNames.requireNetworkName(networkName)));
    }

    /**
     * Sets {@code cniVersion}, as the runtime does from the network configuration. Fails (code 1) only if the
     * configuration holds a {@code prevResult} that is not of the new version's result type: set the version first,
     * then {@link #withPrevResult} a result converted to it.
     */
    public PluginConfig withCniVersion(CniVersion version) throws CniException {
        return new PluginConfig(json.with("cniVersion", Json.of(version.toString())), path);
    }

    /** Sets {@code runtimeConfig}. */
    public PluginConfig withRuntimeConfig(JsonObject config) {
        return trusted(json.with("runtimeConfig", config));
    }

    /**
     * Sets {@code prevResult}; the result must be of the configuration's result type (set {@code cniVersion} first
     * and convert the result to it), else code 1.
     */
    public PluginConfig withPrevResult(CniResult result) throws CniException {
        return new PluginConfig(json.with("prevResult", ResultCodec.toJson(result)), path);
    }

    /**
     * Removes {@code capabilities} in every spelling it was read from, as the spec requires of the runtime (libcni 1.1
     * leaves it in).
     */
    public PluginConfig withoutCapabilities() {
        return trusted(json.withoutField("capabilities"));
    }

    /** Sets the GC input under both {@code cni.dev/valid-attachments} and {@code cni.dev/attachments}, as libcni does. */
    public PluginConfig withValidAttachments(List<GcAttachment> attachments) {
        List<Json> elements = new ArrayList<>();
        for (GcAttachment attachment : attachments) {
            elements.add(JsonObject.of("containerID", Json.of(attachment.containerId()), "ifname",
                    Json.of(attachment.ifName())));
        }
        JsonArray list = new JsonArray(elements);
        return trusted(json.with(VALID_ATTACHMENTS, list).with(LEGACY_ATTACHMENTS, list));
    }

    /**
     * Re-decodes after a change that cannot invalidate the object: it sets a well-typed value of a key whose checks it
     * satisfies, or removes an optional key.
     */
    private PluginConfig trusted(JsonObject changed) {
        try {
            return new PluginConfig(changed, path);
        } catch (CniException impossible) {
            throw new IllegalStateException("a well-typed change made the configuration invalid", impossible);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PluginConfig config && config.json.equals(json);
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
