package io.jcni.spec;

import java.util.Objects;

/**
 * The CNI error result: what a plugin prints on failure and what a runtime returns to its caller.
 *
 * <p>Strings are never null; an empty string means "absent" and is omitted on the wire, as libcni omits empty
 * {@code details}. {@code cniVersion} is part of the error since spec 1.0.0 (libcni's {@code types.Error} does not carry
 * it; jcni prints it when set).
 *
 * @param cniVersion the protocol version of the request this error answers, or "" when unknown
 * @param code       a well-known code (0-99, see the constants) or a plugin-specific one (100+)
 * @param msg        a short message characterizing the error
 * @param details    a longer description, or ""
 */
public record CniError(String cniVersion, int code, String msg, String details) {

    /** Unknown error (libcni's {@code ErrUnknown}). */
    public static final int UNKNOWN = 0;
    /** Incompatible CNI version. */
    public static final int INCOMPATIBLE_CNI_VERSION = 1;
    /** Unsupported field in network configuration; the message must contain the key and value. */
    public static final int UNSUPPORTED_FIELD = 2;
    /** Container unknown or does not exist; the runtime need not clean up (e.g. call DEL). */
    public static final int UNKNOWN_CONTAINER = 3;
    /** Invalid necessary environment variables; the message must name them. */
    public static final int INVALID_ENVIRONMENT_VARIABLES = 4;
    /** I/O failure, e.g. reading the configuration from stdin. */
    public static final int IO_FAILURE = 5;
    /** Failed to decode content: malformed JSON, wrong JSON types. */
    public static final int DECODING_FAILURE = 6;
    /** Invalid network configuration: a value that decodes but violates a rule. */
    public static final int INVALID_NETWORK_CONFIG = 7;
    /** Invalid network namespace (libcni's {@code ErrInvalidNetNS}; not in the spec's table). */
    public static final int INVALID_NETNS = 8;
    /** Try again later: a transient condition the runtime may retry. */
    public static final int TRY_AGAIN_LATER = 11;
    /** STATUS (1.1.0): the plugin cannot service ADD requests. */
    public static final int PLUGIN_NOT_AVAILABLE = 50;
    /** STATUS (1.1.0): the plugin is not available and existing containers may have limited connectivity. */
    public static final int LIMITED_CONNECTIVITY = 51;
    /** The first code free for plugin-specific errors; 0-99 are reserved for well-known errors. */
    public static final int FIRST_PLUGIN_SPECIFIC = 100;
    /** Internal error (libcni's {@code ErrInternal}: what a plugin returns for an error without a code). */
    public static final int INTERNAL = 999;

    public CniError {
        cniVersion = cniVersion == null ? "" : cniVersion;
        msg = msg == null ? "" : msg;
        details = details == null ? "" : details;
        if (code < 0) {
            throw new IllegalArgumentException("CNI error code must not be negative: " + code);
        }
    }

    public CniError(int code, String msg) {
        this("", code, msg, "");
    }

    public CniError(int code, String msg, String details) {
        this("", code, msg, details);
    }

    /** This error answering a request of the given protocol version. */
    public CniError withCniVersion(CniVersion version) {
        return new CniError(Objects.requireNonNull(version, "version").toString(), code, msg, details);
    }

    /** The text libcni's {@code Error()} gives: {@code msg}, then {@code "; " + details} when details are present. */
    public String message() {
        return details.isEmpty() ? msg : msg + "; " + details;
    }

    /** True for codes the runtime or plugin author chose (100 and above) rather than the spec. */
    public boolean isPluginSpecific() {
        return code >= FIRST_PLUGIN_SPECIFIC && code != INTERNAL;
    }

    /** What a well-known code means, in the spec's words; "" for codes without a meaning. */
    public static String describe(int code) {
        return switch (code) {
            case UNKNOWN -> "Unknown error";
            case INCOMPATIBLE_CNI_VERSION -> "Incompatible CNI version";
            case UNSUPPORTED_FIELD -> "Unsupported field in network configuration";
            case UNKNOWN_CONTAINER -> "Container unknown or does not exist";
            case INVALID_ENVIRONMENT_VARIABLES -> "Invalid necessary environment variables";
            case IO_FAILURE -> "I/O failure";
            case DECODING_FAILURE -> "Failed to decode content";
            case INVALID_NETWORK_CONFIG -> "Invalid network config";
            case INVALID_NETNS -> "Invalid network namespace";
            case TRY_AGAIN_LATER -> "Try again later";
            case PLUGIN_NOT_AVAILABLE -> "Plugin not available";
            case LIMITED_CONNECTIVITY -> "Plugin not available; existing containers may have limited connectivity";
            case INTERNAL -> "Internal error";
            default -> "";
        };
    }
}
