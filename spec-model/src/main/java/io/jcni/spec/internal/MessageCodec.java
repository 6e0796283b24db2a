package io.jcni.spec.internal;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.VersionInfo;
import java.util.LinkedHashMap;
import java.util.List;

/** Error results and version info, to and from JSON. */
public final class MessageCodec {
    private MessageCodec() {
    }

    /**
     * An error result. {@code code} must be an integer 0-2147483647 (absent means 0, as in libcni's struct); the
     * strings default to "". Any {@code cniVersion} text is kept: an error must be readable whatever it says.
     */
    public static CniError decodeError(JsonObject json) throws CniException {
        ConfigNode root = ConfigNode.root(json, CniError.DECODING_FAILURE);
        Integer code = ResultCodec.intOrNull(root, "code", 0, Integer.MAX_VALUE);
        return new CniError(root.string("cniVersion").orElse(""), code == null ? 0 : code, root.string("msg").orElse(""),
                root.string("details").orElse(""));
    }

    /** {@code {"cniVersion"?, "code", "msg", "details"?}}: libcni's fields plus the spec's cniVersion when set. */
    public static JsonObject toJson(CniError error) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        if (!error.cniVersion().isEmpty()) {
            out.put("cniVersion", Json.of(error.cniVersion()));
        }
        out.put("code", JsonNumber.of(error.code()));
        out.put("msg", Json.of(error.msg()));
        if (!error.details().isEmpty()) {
            out.put("details", Json.of(error.details()));
        }
        return JsonObject.of(out);
    }

    /**
     * Version info as libcni's {@code PluginDecoder}: {@code cniVersion} is required; an absent or empty
     * {@code supportedVersions} means [0.1.0, 0.2.0] for a 0.2.0 plugin (which predates the field) and is an error
     * otherwise. All failures are code 6 with libcni's wording.
     */
    public static VersionInfo decodeVersionInfo(JsonObject json) throws CniException {
        ConfigNode root = ConfigNode.root(json, CniError.DECODING_FAILURE);
        String cniVersion = root.string("cniVersion").orElse("");
        if (cniVersion.isEmpty()) {
            throw new CniException(CniError.DECODING_FAILURE, "decoding version info: missing field cniVersion");
        }
        List<String> supported = root.stringList("supportedVersions");
        if (supported.isEmpty()) {
            if (cniVersion.equals("0.2.0")) {
                return new VersionInfo(cniVersion, List.of("0.1.0", "0.2.0"));
            }
            throw new CniException(CniError.DECODING_FAILURE,
                    "decoding version info: missing field supportedVersions");
        }
        return new VersionInfo(cniVersion, supported);
    }

    public static JsonObject toJson(VersionInfo info) {
        LinkedHashMap<String, Json> out = new LinkedHashMap<>();
        out.put("cniVersion", Json.of(info.cniVersion()));
        if (!info.supportedVersions().isEmpty()) {
            out.put("supportedVersions", ResultCodec.strings(info.supportedVersions()));
        }
        return JsonObject.of(out);
    }
}
