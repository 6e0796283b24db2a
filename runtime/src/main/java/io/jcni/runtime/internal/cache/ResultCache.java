package io.jcni.runtime.internal.cache;

import io.jcni.runtime.CachedAttachment;
import io.jcni.runtime.CachedConfig;
import io.jcni.runtime.RuntimeConf;
import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.runtime.internal.exec.PluginFailure;
import io.jcni.runtime.internal.exec.PluginOutput;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The result cache, in libcni's format so that a node can switch between libcni-based and jcni-based runtimes:
 * {@code <cacheDir>/results/<network>-<containerID>-<ifname>} holding one JSON object,
 * {@code {"kind":"cniCacheV1","containerId","config" (base64 of the configuration bytes),"ifName","networkName",
 * "netns","cniArgs" ([[k,v],...]),"capabilityArgs","result"}} with empty optional fields omitted, mode 0600 in a 0700
 * directory. A file without {@code kind: cniCacheV1} is a legacy bare result (libcni before 0.8) and is read as such.
 *
 * <p>Writes are atomic and durable ({@link AtomicFiles}), so a reader (jcni or libcni) never sees half a file. Errors
 * use libcni's texts; the caller adds libcni's {@code failed to get network "x" cached result: } prefix.
 */
public final class ResultCache {
    public static final String KIND = "cniCacheV1";

    private final Path results;

    public ResultCache(Path cacheDir) {
        this.results = cacheDir.resolve("results");
    }

    public Path resultsDir() {
        return results;
    }

    /**
     * The cache file of an attachment. The caller has validated the names (network name and container ID rules,
     * interface name rule), so none can contain a path separator.
     */
    public Path file(String network, String containerId, String ifName) throws CniException {
        if (network.isEmpty() || containerId.isEmpty() || ifName.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "cache file path requires network name (\"" + network
                    + "\"), container ID (\"" + containerId + "\"), and interface name (\"" + ifName + "\")");
        }
        String name = network + "-" + containerId + "-" + ifName;
        if (name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new CniException(CniError.INTERNAL, "invalid cache file name: " + name);
        }
        return results.resolve(name);
    }

    /** Stores the result of a successful ADD (replacing any earlier entry). */
    public void write(String network, RuntimeConf rt, byte[] config, CniResult result)
            throws CniException, IOException {
        LinkedHashMap<String, Json> doc = new LinkedHashMap<>();
        doc.put("kind", Json.of(KIND));
        doc.put("containerId", Json.of(rt.containerId()));
        doc.put("config", Json.of(Base64.getEncoder().encodeToString(config)));
        doc.put("ifName", Json.of(rt.ifName()));
        doc.put("networkName", Json.of(network));
        if (!rt.netns().isEmpty()) {
            doc.put("netns", Json.of(rt.netns()));
        }
        if (!rt.args().isEmpty()) {
            List<Json> pairs = new ArrayList<>();
            for (Map.Entry<String, String> pair : rt.args().pairs()) {
                pairs.add(Json.array(Json.of(pair.getKey()), Json.of(pair.getValue())));
            }
            doc.put("cniArgs", new JsonArray(pairs));
        }
        if (!rt.capabilityArgs().isEmpty()) {
            doc.put("capabilityArgs", rt.capabilityArgs());
        }
        doc.put("result", CniJson.toJson(result));
        AtomicFiles.write(file(network, rt.containerId(), rt.ifName()), CniJson.encode(JsonObject.of(doc)));
    }

    /** Removes an attachment's entry; false if there was none. */
    public boolean delete(String network, RuntimeConf rt) throws CniException, IOException {
        return AtomicFiles.delete(file(network, rt.containerId(), rt.ifName()));
    }

    /**
     * The cached result converted to {@code version} (libcni's {@code getCachedResult}): empty if there is no file;
     * a {@code cniCacheV1} file's {@code result}; any other file decoded as a bare result.
     */
    public Optional<CniResult> result(String network, RuntimeConf rt, CniVersion version) throws CniException {
        byte[] bytes = read(file(network, rt.containerId(), rt.ifName()));
        if (bytes == null) {
            return Optional.empty();
        }
        JsonObject v1 = v1Document(bytes);
        CniResult result;
        if (v1 != null) {
            Json raw = v1.field("result").orElse(Json.NULL);
            if (!(raw instanceof JsonObject object)) {
                throw new CniException(CniError.DECODING_FAILURE,
                        "cached network \"" + network + "\" entry has no result");
            }
            result = decodeResult(object);
        } else {
            result = legacyResult(bytes);
        }
        try {
            return Optional.of(result.convertTo(version));
        } catch (CniException e) {
            throw new CniException(e.code(), "failed to convert cached result to config version \"" + version
                    + "\": " + e.getMessage());
        }
    }

    /** libcni's {@code getCachedConfig}: the configuration bytes and the cached CNI_ARGS and capability arguments. */
    public Optional<CachedConfig> config(String network, RuntimeConf rt) throws CniException {
        byte[] bytes = read(file(network, rt.containerId(), rt.ifName()));
        if (bytes == null) {
            return Optional.empty();
        }
        Json json;
        try {
            json = CniJson.parse(bytes);
        } catch (CniException e) {
            throw new CniException(CniError.DECODING_FAILURE,
                    "failed to unmarshal cached network \"" + network + "\" config: " + e.getMessage());
        }
        String kind = json instanceof JsonObject o && o.field("kind").orElse(Json.NULL) instanceof JsonString k
                ? k.value() : "";
        if (!kind.equals(KIND)) {
            throw new CniException(CniError.DECODING_FAILURE,
                    "read cached network \"" + network + "\" config has wrong kind: " + kind);
        }
        CacheEntry entry = entry((JsonObject) json);
        RuntimeConf cached = new RuntimeConf(rt.containerId(), rt.netns(), rt.ifName(),
                entry.cniArgs().isEmpty() ? rt.args() : entry.cniArgs(), entry.capabilityArgs());
        return Optional.of(new CachedConfig(entry.config(), cached));
    }

    /**
     * The attachments in the cache, sorted by file name, filtered by container ID unless it is "" (libcni's
     * {@code GetCachedAttachments}). Unreadable files, other kinds and entries without interface or network name are
     * skipped; temporary files of an interrupted write too.
     */
    public List<CachedAttachment> attachments(String containerId) throws IOException {
        List<CachedAttachment> found = new ArrayList<>();
        for (Listed listed : list(containerId)) {
            found.add(listed.attachment());
        }
        return found;
    }

    /** An attachment in the cache with the result it recorded (null if none), for judging whether it is stale. */
    public record Listed(CachedAttachment attachment, JsonObject result) {
    }

    /** Every attachment in the cache with its recorded result, as {@link #attachments(String)} finds them. */
    public List<Listed> listed() throws IOException {
        return list("");
    }

    private List<Listed> list(String containerId) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(results)) {
            for (Path file : dir) {
                files.add(file);
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        }
        Collections.sort(files);
        List<Listed> found = new ArrayList<>();
        String infix = "-" + containerId + "-";
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (name.startsWith(".")) {
                continue;
            }
            if (!containerId.isEmpty()) {
                int at = name.indexOf(infix);
                if (at <= 0 || at + infix.length() >= name.length()) {
                    continue;
                }
            }
            try {
                byte[] bytes = read(file);
                JsonObject v1 = bytes == null ? null : v1Document(bytes);
                if (v1 == null) {
                    continue;
                }
                CacheEntry entry = entry(v1);
                if ((!containerId.isEmpty() && !entry.containerId().equals(containerId)) || entry.ifName().isEmpty()
                        || entry.networkName().isEmpty()) {
                    continue;
                }
                found.add(new Listed(new CachedAttachment(entry.networkName(), new RuntimeConf(entry.containerId(),
                        entry.netns(), entry.ifName(), entry.cniArgs(), entry.capabilityArgs()), entry.config()),
                        entry.result()));
            } catch (CniException e) {
                // Not a usable entry: skipped, as libcni skips files it cannot unmarshal.
            }
        }
        return found;
    }

    /**
     * The file's bytes, or null if it does not exist (libcni ignores read errors the same way). Only a regular file of
     * at most {@link CniJson#MAX_DOCUMENT_BYTES} is read, and a symbolic link there is not followed: a FIFO, a huge
     * file or a link planted in the cache is an error, never a hang or a read elsewhere.
     */
    private static byte[] read(Path file) throws CniException {
        try {
            return BoundedFiles.read(file, CniJson.MAX_DOCUMENT_BYTES, BoundedFiles.Links.REFUSE);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "cannot read cache file " + file + ": " + IoText.reason(e));
        }
    }

    /**
     * Whether the attachment has an entry (whatever its content: a corrupt entry is still an attachment that was
     * added and not deleted). A symbolic link counts as an entry; it is not followed.
     */
    public boolean exists(String network, RuntimeConf rt) throws CniException {
        return Files.exists(file(network, rt.containerId(), rt.ifName()), LinkOption.NOFOLLOW_LINKS);
    }

    /** The document if it is a JSON object with {@code kind: cniCacheV1}, else null (a legacy file, or garbage). */
    private static JsonObject v1Document(byte[] bytes) {
        try {
            if (CniJson.parse(bytes) instanceof JsonObject object
                    && object.field("kind").orElse(Json.NULL) instanceof JsonString kind && kind.value().equals(KIND)) {
                return object;
            }
        } catch (CniException e) {
            // Not JSON: the legacy path reports it with libcni's text.
        }
        return null;
    }

    private static CniResult legacyResult(byte[] bytes) throws CniException {
        try {
            PluginOutput.configVersion(bytes);
        } catch (PluginFailure e) {
            throw new CniException(e.error());
        }
        return decodeResult((JsonObject) CniJson.parse(bytes));
    }

    /** A result in its own version; an unknown version gets libcni's {@code unsupported CNI result version "9.9.9"}. */
    private static CniResult decodeResult(JsonObject json) throws CniException {
        if (json.field("cniVersion").orElse(Json.NULL) instanceof JsonString text && !text.value().isEmpty()) {
            CniVersion version = CniVersion.parse(text.value(), "result.cniVersion");
            if (!version.isSupported()) {
                throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                        "unsupported CNI result version \"" + text.value() + "\"");
            }
        }
        return CniJson.decodeResult(json, null);
    }

    private static CacheEntry entry(JsonObject json) throws CniException {
        ConfigNode root = ConfigNode.root(json, CniError.DECODING_FAILURE);
        byte[] config;
        try {
            config = Base64.getDecoder().decode(root.string("config").orElse(""));
        } catch (IllegalArgumentException e) {
            throw new CniException(CniError.DECODING_FAILURE, "config: invalid base64: " + e.getMessage());
        }
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (ConfigNode pair : root.array("cniArgs")) {
            List<String> kv = pair.asStringList();
            if (kv.size() != 2) {
                throw pair.invalid("expected a [key, value] pair");
            }
            pairs.add(Map.entry(kv.get(0), kv.get(1)));
        }
        Optional<ConfigNode> caps = root.object("capabilityArgs");
        Optional<ConfigNode> result = root.object("result");
        return new CacheEntry(root.string("containerId").orElse(""), config, root.string("ifName").orElse(""),
                root.string("networkName").orElse(""), root.string("netns").orElse(""), CniArgs.of(pairs),
                caps.isEmpty() ? JsonObject.EMPTY : caps.get().asObject(),
                result.isEmpty() ? null : result.get().asObject());
    }
}
