package io.jcni.plugins.sdk;

import io.jcni.runtime.Delegation;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Command;
import io.jcni.spec.PluginConfig;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One call of a plugin, as the skel validated it: the command, the CNI_* variables, the raw stdin and its decoded
 * configuration. What the skel guarantees before a handler runs:
 * <ul>
 * <li>ADD, CHECK, DEL: {@link #containerId()} and {@link #ifName()} are valid names; ADD and CHECK have a
 * {@link #netns()}; DEL may not (then it is "");</li>
 * <li>GC, STATUS: no container variables are read (they are "");</li>
 * <li>{@link #config()} decoded, with a valid network name, and a {@code cniVersion} this plugin supports (at least
 * 0.4.0 for CHECK, 1.1.0 for GC and STATUS);</li>
 * <li>ADD, DEL: {@link #netns()} is not the plugin's own network namespace (unless {@code CNI_NETNS_OVERRIDE}).</li>
 * </ul>
 * {@code CNI_ARGS} is parsed only when a handler asks ({@link #cniArgs()}), so a plugin that ignores it is not failed
 * by it, as with libcni's skel.
 */
public final class CniRequest {
    private final Skel skel;
    private final Command command;
    private final Map<String, String> env;
    private final String containerId;
    private final String netns;
    private final String ifName;
    private final String argsText;
    private final String pathText;
    private final byte[] stdin;
    private final PluginConfig config;
    private final PluginLog log;
    private final OutputStream stderr;
    private CniArgs args;
    private Rollback rollback;
    private Delegation delegation;

    CniRequest(Skel skel, Command command, Map<String, String> env, String containerId, String netns, String ifName,
            String argsText, String pathText, byte[] stdin, PluginConfig config, PluginLog log, OutputStream stderr) {
        this.skel = skel;
        this.command = command;
        this.env = env;
        this.containerId = containerId;
        this.netns = netns;
        this.ifName = ifName;
        this.argsText = argsText;
        this.pathText = pathText;
        this.stdin = stdin;
        this.config = config;
        this.log = log;
        this.stderr = stderr;
    }

    public Command command() {
        return command;
    }

    /** {@code CNI_CONTAINERID}; "" for GC and STATUS. */
    public String containerId() {
        return containerId;
    }

    /** {@code CNI_NETNS}: a path to the container's network namespace; "" when absent (DEL, GC, STATUS). */
    public String netns() {
        return netns;
    }

    /** {@code CNI_IFNAME}; "" for GC and STATUS. */
    public String ifName() {
        return ifName;
    }

    /** {@code CNI_ARGS} as given ("" when unset). */
    public String cniArgsText() {
        return argsText;
    }

    /** {@code CNI_ARGS} parsed (code 4 if malformed); check the keys with {@link CniArgs#requireKnown}. */
    public CniArgs cniArgs() throws CniException {
        if (args == null) {
            args = CniArgs.parse(argsText);
        }
        return args;
    }

    /** {@code CNI_PATH} as given. */
    public String cniPathText() {
        return pathText;
    }

    /** The directories of {@code CNI_PATH}, in order, empty entries dropped. */
    public List<String> cniPath() {
        List<String> dirs = new ArrayList<>();
        int start = 0;
        while (start <= pathText.length()) {
            int end = pathText.indexOf(':', start);
            if (end < 0) {
                end = pathText.length();
            }
            if (end > start) {
                dirs.add(pathText.substring(start, end));
            }
            start = end + 1;
        }
        return List.copyOf(dirs);
    }

    /** The bytes read on stdin, unchanged: what a delegate (IPAM) must receive. A copy. */
    public byte[] stdin() {
        return stdin.clone();
    }

    /** The configuration read on stdin. */
    public PluginConfig config() {
        return config;
    }

    /** The configuration's {@code cniVersion}: the version the result is printed in. */
    public CniVersion cniVersion() {
        return config.cniVersion();
    }

    /** The complete environment the plugin runs with (what delegates inherit). */
    public Map<String, String> env() {
        return env;
    }

    /** The plugin's log (stderr). */
    public PluginLog log() {
        return log;
    }

    /**
     * This call's {@link Rollback}: register the undo of each side effect the moment it is made. The skel commits it
     * when the command succeeds and runs it when the command fails, wherever the failure happens.
     */
    public Rollback rollback() {
        if (rollback == null) {
            rollback = new Rollback(log);
        }
        return rollback;
    }

    /**
     * Delegation to other plugins (IPAM) with this call's environment: through CNI_PATH, in this JVM when the
     * executable found is a jcni launcher of a type the skel was given ({@link Skel#withDelegates}), exec'd
     * otherwise. Delegates log to this plugin's stderr.
     */
    public Delegation delegation() {
        if (delegation == null) {
            delegation = Delegation.create(env, skel.delegates(), stderr);
        }
        return delegation;
    }

    /** The IPAM plugin of this configuration ({@code ipam.type}), called with this call's stdin. */
    public Ipam ipam() throws CniException {
        String type = config.ipamType();
        if (type.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "ipam.type: missing plugin type",
                    "the configuration has no IPAM plugin");
        }
        return new Ipam(type, this);
    }

    void commitRollback() {
        if (rollback != null) {
            rollback.commit();
        }
    }

    void closeRollback() {
        if (rollback != null) {
            rollback.close();
        }
    }

    Skel skel() {
        return skel;
    }

    byte[] stdinBytes() {
        return stdin;
    }
}
