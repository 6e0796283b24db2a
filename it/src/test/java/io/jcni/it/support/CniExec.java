package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One plugin executable (jcni's launcher or Go's binary) exec'd directly as a runtime execs it: CNI_* variables,
 * the configuration on stdin, no libcni in between, so a test controls the exact stdin (a {@code prevResult}, a
 * broken option) and sees the plugin's own error JSON.
 *
 * <p>With {@link #inNetns(String)} the plugin runs under {@code ip netns exec NAME}: its "host" namespace is then a
 * test namespace, so plugins that touch the host side (master links, moved devices, the default route) work on links
 * a test made there and never on the machine's own.
 */
public record CniExec(Path plugin, List<Path> cniPath, String hostNetns, Map<String, String> extraEnv) {

    public static CniExec of(Path plugin, List<Path> cniPath) {
        return new CniExec(plugin, List.copyOf(cniPath), null, Map.of());
    }

    /** The same plugin run inside the named namespace ({@code ip netns exec}), which becomes its host. */
    public CniExec inNetns(String name) {
        return new CniExec(plugin, cniPath, name, extraEnv);
    }

    public CniExec withEnv(String name, String value) {
        Map<String, String> env = new HashMap<>(extraEnv);
        env.put(name, value);
        return new CniExec(plugin, cniPath, hostNetns, Map.copyOf(env));
    }

    /** What one call left: exit status and both streams. */
    public record Outcome(ProcessResult process) {
        public boolean succeeded() {
            return process.exitCode() == 0;
        }

        /** The result JSON; fails the test with everything the plugin printed if the call failed. */
        public JsonNode result() {
            if (!succeeded()) {
                throw new AssertionError("plugin failed: " + process.describe());
            }
            return process.stdout().isBlank() ? Json.parse("{}") : Json.parse(process.stdout());
        }

        /** The CNI error JSON ({@code code, msg, details}); fails the test if the call succeeded. */
        public JsonNode error() {
            if (succeeded()) {
                throw new AssertionError("plugin succeeded, an error was expected: " + process.describe());
            }
            return Json.parse(process.stdout());
        }

        public int code() {
            return error().path("code").asInt();
        }

        public String msg() {
            return error().path("msg").asText();
        }
    }

    public Outcome call(String command, String conf, Path netns, String containerId, String ifName) {
        return call(command, conf, netns, containerId, ifName, null);
    }

    public Outcome call(String command, String conf, Path netns, String containerId, String ifName, String cniArgs) {
        Map<String, String> env = new HashMap<>(extraEnv);
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", containerId);
        env.put("CNI_NETNS", netns == null ? "" : netns.toString());
        env.put("CNI_IFNAME", ifName);
        env.put("CNI_PATH", cniPath.stream().map(Path::toString).collect(Collectors.joining(":")));
        env.put("CNI_ARGS", cniArgs == null ? "" : cniArgs);
        List<String> command1 = new ArrayList<>();
        if (hostNetns != null) {
            command1.addAll(List.of("ip", "netns", "exec", hostNetns));
        }
        command1.add(plugin.toString());
        return new Outcome(Processes.run(command1, env, conf, Processes.DEFAULT_TIMEOUT));
    }

    public Outcome add(String conf, Path netns, String containerId, String ifName) {
        return call("ADD", conf, netns, containerId, ifName);
    }

    public Outcome check(String conf, Path netns, String containerId, String ifName) {
        return call("CHECK", conf, netns, containerId, ifName);
    }

    public Outcome del(String conf, Path netns, String containerId, String ifName) {
        return call("DEL", conf, netns, containerId, ifName);
    }
}
