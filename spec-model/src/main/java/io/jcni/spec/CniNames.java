package io.jcni.spec;

import java.nio.charset.StandardCharsets;

/**
 * The naming rules of the spec, with libcni's messages and codes.
 *
 * <table>
 * <caption>Rules and the codes a violation maps to</caption>
 * <tr><th>what</th><th>rule</th><th>code</th></tr>
 * <tr><td>network name</td><td>{@code ^[a-zA-Z0-9][a-zA-Z0-9_.\-]*$}</td><td>7</td></tr>
 * <tr><td>container ID</td><td>same pattern; empty is "missing"</td><td>3 if empty, else 4</td></tr>
 * <tr><td>interface name</td><td>1-15 bytes (UTF-8), not {@code .}/{@code ..}, no {@code /}, {@code :} or
 * whitespace (Go's {@code unicode.IsSpace})</td><td>4</td></tr>
 * <tr><td>plugin {@code type}</td><td>not empty, not {@code .}/{@code ..}, no {@code /}, {@code \} or NUL</td>
 * <td>7</td></tr>
 * </table>
 */
public final class CniNames {
    /** Linux's IFNAMSIZ (16) minus the terminating NUL. */
    public static final int MAX_INTERFACE_NAME_BYTES = 15;

    private CniNames() {
    }

    /** True if {@code name} matches {@code ^[a-zA-Z0-9][a-zA-Z0-9_.\-]*$}. */
    public static boolean isValidName(String name) {
        if (name == null || name.isEmpty() || !isAlnum(name.charAt(0))) {
            return false;
        }
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!isAlnum(c) && c != '_' && c != '.' && c != '-') {
                return false;
            }
        }
        return true;
    }

    /** Validates a network name (code 7). */
    public static String requireNetworkName(String name) throws CniException {
        if (name == null || name.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "missing network name");
        }
        if (!isValidName(name)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "invalid characters found in network name", name);
        }
        return name;
    }

    /** Validates a container ID ({@code CNI_CONTAINERID}): code 3 if missing, 4 if malformed. */
    public static String requireContainerId(String containerId) throws CniException {
        if (containerId == null || containerId.isEmpty()) {
            throw new CniException(CniError.UNKNOWN_CONTAINER, "missing containerID");
        }
        if (!isValidName(containerId)) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "invalid characters in containerID",
                    containerId);
        }
        return containerId;
    }

    /**
     * Validates an interface name ({@code CNI_IFNAME}, code 4): Go's rules (libcni's {@code ValidateInterfaceName}),
     * plus one of jcni's: the name must be valid UTF-8. The kernel takes any bytes, and Go's plugins store them as they
     * are (host-local's files, the result cache); a Java string cannot hold such bytes (they decode to U+FFFD), so
     * jcni would store a different name than Go for the same attachment, and Go and jcni sharing a data directory
     * would disagree about who holds an address. Such a name (seen here as U+FFFD or a lone surrogate) is refused
     * instead. A name that really contains U+FFFD is refused too: it cannot be told apart.
     */
    public static String requireInterfaceName(String ifName) throws CniException {
        if (ifName == null || ifName.isEmpty()) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "interface name is empty");
        }
        for (int i = 0; i < ifName.length(); i++) {
            char c = ifName.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < ifName.length()
                    && Character.isLowSurrogate(ifName.charAt(i + 1));
            if (c == '\uFFFD' || (Character.isSurrogate(c) && !paired)) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "interface name is not valid UTF-8",
                        "CNI_IFNAME must be UTF-8 text: jcni refuses other bytes rather than store a name that differs "
                                + "from the one Go's plugins store");
            }
            if (paired) {
                i++;
            }
        }
        if (ifName.getBytes(StandardCharsets.UTF_8).length > MAX_INTERFACE_NAME_BYTES) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "interface name is too long",
                    "interface name should be less than " + (MAX_INTERFACE_NAME_BYTES + 1) + " characters");
        }
        if (ifName.equals(".") || ifName.equals("..")) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "interface name is . or ..");
        }
        for (int i = 0; i < ifName.length(); ) {
            int cp = ifName.codePointAt(i);
            if (cp == '/' || cp == ':' || isGoSpace(cp)) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES,
                        "interface name contains / or : or whitespace characters");
            }
            i += Character.charCount(cp);
        }
        return ifName;
    }

    /**
     * Validates a plugin {@code type} (also {@code ipam.type}): it names an executable inside CNI_PATH and must not
     * reach outside it (CVE-2021-20206). Code 7.
     */
    public static String requirePluginType(String type, String field) throws CniException {
        if (type == null || type.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, field + ": missing plugin type");
        }
        if (type.equals(".") || type.equals("..") || type.indexOf('/') >= 0 || type.indexOf('\\') >= 0
                || type.indexOf('\0') >= 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    field + ": invalid plugin type \"" + type + "\": must be a file name without path separators");
        }
        return type;
    }

    private static boolean isAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** Go's {@code unicode.IsSpace}: differs from {@link Character#isWhitespace} (NBSP counts, U+001C-1F do not). */
    static boolean isGoSpace(int cp) {
        return switch (cp) {
            case '\t', '\n', 0x0B, '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 -> true;
            default -> cp >= 0x2000 && cp <= 0x200A;
        };
    }
}
