package io.jcni.runtime.internal.exec;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import io.jcni.spec.VersionInfo;
import java.util.List;

/**
 * What a plugin's output means, decoded as libcni decodes it.
 *
 * <p>Texts follow libcni 1.1.2 (recorded in {@code it/src/test/resources/libcni-errors/failure-texts.json}); where
 * libcni quotes Go's JSON parser ({@code invalid character 'i' in literal true (expecting 'u')}) jcni quotes its own
 * parser after the same prefix. Go's {@code unexpected end of JSON input} for empty output is kept verbatim.
 */
public final class PluginOutput {
    /** Go's encoding/json text for empty input. */
    static final String GO_EMPTY_INPUT = "unexpected end of JSON input";

    private PluginOutput() {
    }

    /**
     * The error of a plugin that exited non-zero (libcni's {@code pluginErr}), code 0 unless the plugin printed an
     * error result: no stdout and no stderr: {@code netplugin failed with no error message: <exit>}; stderr only:
     * {@code netplugin failed: <%q of stderr>}; stdout an error result: that error unchanged; stdout anything else:
     * {@code netplugin failed but error parsing its diagnostic message <%q of stdout>: <parse error>}.
     *
     * @param exitText Go's text for how the process ended ({@code exit status 1}, {@code signal: killed})
     * @param details  added as the error's details when it has none (e.g. why the plugin was killed), or ""
     */
    public static PluginFailure failure(String exitText, byte[] stdout, byte[] stderr, String details) {
        CniError error;
        if (stdout.length == 0) {
            String msg = stderr.length == 0 ? "netplugin failed with no error message: " + exitText
                    : "netplugin failed: " + GoText.quote(stderr);
            error = new CniError("", CniError.UNKNOWN, msg, details);
        } else {
            try {
                error = CniJson.decodeError(stdout);
            } catch (CniException e) {
                error = new CniError("", CniError.UNKNOWN, "netplugin failed but error parsing its diagnostic message "
                        + GoText.quote(stdout) + ": " + jsonError(stdout, e), details);
            }
            if (error.details().isEmpty() && !details.isEmpty()) {
                error = new CniError(error.cniVersion(), error.code(), error.msg(), details);
            }
        }
        return new PluginFailure(error, true, stderr, null);
    }

    /**
     * A success result (libcni's {@code fixupResultVersion} + {@code create.Create}): a missing or empty
     * {@code cniVersion} means the configuration's; a declared one is kept. Undecodable output is code 6,
     * {@code failed to unmarshal raw result: <parse error>}; a result of an unknown version code 1.
     */
    public static CniResult result(byte[] stdout, CniVersion configVersion) throws PluginFailure {
        return result(stdout, configVersion, (List<String>) null);
    }

    /**
     * As {@link #result(byte[], CniVersion)}, adding to {@code warnings} (when not null) what was accepted only
     * because libcni accepts it ({@link CniJson#decodeResult(byte[], CniVersion, List)}).
     */
    public static CniResult result(byte[] stdout, CniVersion configVersion, List<String> warnings)
            throws PluginFailure {
        Json json;
        try {
            json = CniJson.parse(stdout);
        } catch (CniException e) {
            throw PluginFailure.engine(CniError.DECODING_FAILURE,
                    "failed to unmarshal raw result: " + jsonError(stdout, e));
        }
        if (!(json instanceof JsonObject object)) {
            throw PluginFailure.engine(CniError.DECODING_FAILURE,
                    "failed to unmarshal raw result: expected a JSON object, got " + json.typeName());
        }
        // libcni looks cniVersion up in a map (exact key) and, when it is missing or empty, sets it to the
        // configuration's before decoding the result struct, where that key then wins over any "CNIVersion".
        boolean declared = object.get("cniVersion").orElse(Json.NULL) instanceof JsonString v && !v.value().isEmpty();
        JsonObject document = declared ? object : object.with("cniVersion", Json.of(configVersion.toString()));
        try {
            return CniJson.decodeResult(document, declared ? null : configVersion, warnings);
        } catch (CniException e) {
            throw new PluginFailure(e.error(), false, null, e);
        }
    }

    /**
     * {@link #result(byte[], CniVersion)} converted to {@code target}, as a list operation hands it on (to the next
     * plugin as prevResult, to the cache, to the caller). A result that cannot be converted fails as one that does not
     * decode: a failure of the engine's side with the conversion's error unchanged.
     */
    public static CniResult result(byte[] stdout, CniVersion configVersion, CniVersion target) throws PluginFailure {
        return result(stdout, configVersion, target, null);
    }

    /** As {@link #result(byte[], CniVersion, CniVersion)}, with warnings as {@link #result(byte[], CniVersion, List)}. */
    public static CniResult result(byte[] stdout, CniVersion configVersion, CniVersion target, List<String> warnings)
            throws PluginFailure {
        CniResult result = result(stdout, configVersion, warnings);
        try {
            return result.convertTo(target);
        } catch (CniException e) {
            throw new PluginFailure(e.error(), false, null, e);
        }
    }

    /**
     * A VERSION answer (libcni's {@code PluginDecoder}); failures are code 6 starting with
     * {@code decoding version info: }.
     */
    public static VersionInfo versionInfo(byte[] stdout) throws PluginFailure {
        if (isBlank(stdout)) {
            throw PluginFailure.engine(CniError.DECODING_FAILURE, "decoding version info: " + GO_EMPTY_INPUT);
        }
        try {
            return CniJson.decodeVersionInfo(stdout);
        } catch (CniException e) {
            throw new PluginFailure(e.error(), false, null, e);
        }
    }

    /** The version of a configuration given as bytes (libcni's {@code ConfigDecoder}). */
    public static CniVersion configVersion(byte[] config) throws PluginFailure {
        if (isBlank(config)) {
            throw PluginFailure.engine(CniError.DECODING_FAILURE,
                    "decoding version from network config: " + GO_EMPTY_INPUT);
        }
        try {
            return CniJson.peekCniVersion(config);
        } catch (CniException e) {
            String msg = e.error().code() == CniError.DECODING_FAILURE
                    ? "decoding version from network config: " + e.error().msg() : e.error().msg();
            throw PluginFailure.engine(e.error().code(), msg);
        }
    }

    /** The parse error's text, Go's for empty input. */
    static String jsonError(byte[] input, CniException e) {
        return isBlank(input) ? GO_EMPTY_INPUT : e.error().message();
    }

    static boolean isBlank(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return false;
            }
        }
        return true;
    }
}
