package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.plugins.sdk.CallerPath;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code ipam} section of a dhcp network, with Go's keys and defaults: {@code daemonSocketPath} (default
 * {@code /run/cni/dhcp.sock}), {@code provide} ({@code [{"option", "value", "fromArg"}]}: options sent to the
 * server), {@code request} ({@code [{"option", "skipDefault"}]}: options asked of it) and {@code priority} (the metric
 * of the result's routes). Options are named as in Go ({@code host-name}, {@code routers}, ...; see
 * {@link #optionCode}) or by number (0-255).
 *
 * <p>Read by the plugin, which fails early on a bad configuration (code 7, Go's messages), and again by the daemon,
 * which trusts nothing it is sent; both run {@link #prepare} to turn it into the options of a request.
 */
record DhcpConfig(Path daemonSocketPath, List<Provide> provide, List<Request> request, int priority) {

    static final String DEFAULT_SOCKET = "/run/cni/dhcp.sock";

    /** An option to send: its code and a literal value and/or the name of a CNI_ARGS key holding the value. */
    record Provide(String option, int code, String value, String fromArg) {
    }

    /** An option to ask for; {@code code} -1 for an entry that only sets {@code skipDefault}. */
    record Request(String option, int code, boolean skipDefault) {
    }

    /** The options of a request, prepared: what the client sends besides its own fields. */
    record Prepared(Map<Integer, byte[]> provided, byte[] parameterRequestList) {
    }

    /**
     * What jcni asks for unless a {@code request} entry says {@code skipDefault}: what the result is made of. Go asks
     * for the subnet mask and routers only (its result has no DNS and reads routes only when a server sends them
     * anyway); jcni also asks for DNS servers, the domain name and search list, and both kinds of static routes.
     */
    static final int[] DEFAULT_REQUESTS = {DhcpMessage.OPT_SUBNET_MASK, DhcpMessage.OPT_ROUTER,
        DhcpMessage.OPT_DNS, DhcpMessage.OPT_DOMAIN_NAME, DhcpMessage.OPT_STATIC_ROUTES,
        DhcpMessage.OPT_DOMAIN_SEARCH, DhcpMessage.OPT_CLASSLESS_ROUTES};

    static DhcpConfig of(ConfigNode ipam) throws CniException {
        String socketText = ipam.string("daemonSocketPath").orElse("");
        Path socket;
        try {
            socket = CallerPath.of(socketText.isEmpty() ? DEFAULT_SOCKET : socketText);
        } catch (InvalidPathException e) {
            throw ipam.invalid("daemonSocketPath: invalid path \"" + socketText + "\"");
        }
        List<Provide> provide = new ArrayList<>();
        for (ConfigNode entry : ipam.array("provide")) {
            entry.asObject();
            String option = entry.string("option").orElse("");
            String value = entry.string("value").orElse("");
            String fromArg = entry.string("fromArg").orElse("");
            int code = optionCode(option);
            if (value.getBytes(StandardCharsets.UTF_8).length > 255) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "value too long for option \"" + option
                        + "\": \"" + value + "\"", "a DHCP option holds at most 255 bytes");
            }
            provide.add(new Provide(option, code, value, fromArg));
        }
        List<Request> request = new ArrayList<>();
        for (ConfigNode entry : ipam.array("request")) {
            entry.asObject();
            String option = entry.string("option").orElse("");
            boolean skipDefault = entry.bool("skipDefault").orElse(false);
            request.add(new Request(option, option.isEmpty() ? -1 : optionCode(option), skipDefault));
        }
        Optional<Long> priority = ipam.integer("priority", 0, Integer.MAX_VALUE);
        return new DhcpConfig(socket, List.copyOf(provide), List.copyOf(request),
                priority.isEmpty() ? 0 : priority.get().intValue());
    }

    /**
     * Go's {@code parseOptionName}: a name of {@code dhcp-options(5)} it knows, or a decimal number 0-255 (Go's
     * {@code strconv.ParseUint(s, 10, 8)}: digits only, no sign). Code 7 otherwise, with Go's message.
     */
    static int optionCode(String option) throws CniException {
        switch (option) {
            case "dhcp-client-identifier":
                return DhcpMessage.OPT_CLIENT_ID;
            case "subnet-mask":
                return DhcpMessage.OPT_SUBNET_MASK;
            case "routers":
                return DhcpMessage.OPT_ROUTER;
            case "host-name":
                return DhcpMessage.OPT_HOST_NAME;
            case "user-class":
                return 77;
            case "vendor-class-identifier":
                return 60;
            default:
                break;
        }
        String why = "invalid syntax";
        if (!option.isEmpty() && allDigits(option)) {
            long value = 0;
            for (int i = 0; i < option.length() && value <= 255; i++) {
                value = value * 10 + (option.charAt(i) - '0');
            }
            if (value <= 255) {
                return (int) value;
            }
            why = "value out of range";
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Can not parse option \"" + option
                + "\": Can not parse option: strconv.ParseUint: parsing \"" + option + "\": " + why,
                "an option is a number 0-255 or one of dhcp-client-identifier, subnet-mask, routers, host-name,"
                        + " user-class, vendor-class-identifier");
    }

    private static boolean allDigits(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Go's {@code prepareOptions}: the {@code provide} values (a literal {@code value}, then the CNI_ARGS value named
     * by {@code fromArg}, the later replacing the earlier for the same code) and the parameter request list (the
     * {@code request} options in order, then {@link #DEFAULT_REQUESTS} unless an entry sets {@code skipDefault}).
     * CNI_ARGS is read as Go reads it here: {@code K=V} pairs split at ';', any key, no {@code IgnoreUnknown} rule.
     */
    Prepared prepare(String cniArgs) throws CniException {
        Map<String, String> args = new LinkedHashMap<>();
        for (String pair : cniArgs.split(";", -1)) {
            int eq = pair.indexOf('=');
            if (eq >= 0) {
                args.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        Map<Integer, byte[]> provided = new LinkedHashMap<>();
        for (Provide p : provide) {
            if (!p.value().isEmpty()) {
                provided.put(p.code(), p.value().getBytes(StandardCharsets.UTF_8));
            }
            String fromArg = args.get(p.fromArg());
            if (fromArg != null) {
                byte[] bytes = fromArg.getBytes(StandardCharsets.UTF_8);
                if (bytes.length > 255) {
                    throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "value too long for option \""
                            + p.option() + "\" from CNI_ARGS \"" + p.fromArg() + "\": \"" + fromArg + "\"");
                }
                provided.put(p.code(), bytes);
            }
        }
        boolean skipDefault = false;
        List<Integer> codes = new ArrayList<>();
        for (Request r : request) {
            skipDefault |= r.skipDefault();
            if (r.code() >= 0 && !codes.contains(r.code())) {
                codes.add(r.code());
            }
        }
        if (!skipDefault) {
            for (int code : DEFAULT_REQUESTS) {
                if (!codes.contains(code)) {
                    codes.add(code);
                }
            }
        }
        byte[] list = new byte[codes.size()];
        for (int i = 0; i < list.length; i++) {
            list[i] = (byte) (int) codes.get(i);
        }
        return new Prepared(provided, list);
    }

    /**
     * Go's client identifier: {@code <containerID>/<network>/<ifname>}, cut to 254 bytes so that with its type byte
     * (0, "not a hardware address") it fits one option.
     */
    static byte[] clientId(String containerId, String network, String ifName) {
        byte[] text = (containerId + "/" + network + "/" + ifName).getBytes(StandardCharsets.UTF_8);
        int length = Math.min(254, text.length);
        byte[] id = new byte[length + 1];
        System.arraycopy(text, 0, id, 1, length);
        return id;
    }
}
