package io.jcni.runtime.internal;

import io.jcni.runtime.Delegation;
import io.jcni.runtime.InProcessPlugin;
import io.jcni.runtime.InProcessPlugins;
import io.jcni.runtime.JcniLaunchers;
import io.jcni.runtime.internal.exec.PluginFailure;
import io.jcni.runtime.internal.exec.PluginInvoker;
import io.jcni.runtime.internal.exec.PluginLocator;
import io.jcni.runtime.internal.exec.PluginOutput;
import io.jcni.runtime.internal.exec.ProcessRunner;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Command;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Delegation} over the runtime's exec engine. Written without lambdas, streams or type switches: it runs inside
 * the start-up of every delegating plugin (DelegationStartupPathTest guards it).
 */
public final class DelegationImpl implements Delegation {
    private final Map<String, String> env;
    private final List<Path> cniPath;
    private final InProcessPlugins inProcess;
    private final PluginInvoker invoker;

    public DelegationImpl(Map<String, String> env, InProcessPlugins inProcess, OutputStream stderr) {
        this.env = Collections.unmodifiableMap(new HashMap<>(Objects.requireNonNull(env, "env")));
        this.inProcess = Objects.requireNonNull(inProcess, "inProcess");
        this.cniPath = PluginLocator.splitPath(env.get("CNI_PATH"));
        this.invoker = new PluginInvoker(ProcessRunner.DEFAULT, stderr);
    }

    /**
     * ADD. A delegate the runtime stopped while its ADD ran (killed when the calling thread was interrupted: a
     * runtime's deadline or cancellation of the in-process plugin that delegates) could not undo its partial work, so
     * it is sent DEL before the failure is reported, with the interrupt status cleared meanwhile (and set again after).
     * A delegate that failed by itself gets no DEL: it undid its own work, and a DEL by name could release what was
     * allocated before (the spec's "upper plugin should execute DEL" is the caller's, as with Go's plugins).
     */
    @Override
    public CniResult add(String type, byte[] config) throws CniException {
        byte[] stdout;
        try {
            stdout = run(type, Command.ADD, config);
        } catch (PluginFailure e) {
            CniException failure = e.toCniException();
            if (e.stopped()) {
                undoStopped(type, config, failure);
            }
            throw failure;
        }
        try {
            return PluginOutput.result(stdout, PluginOutput.configVersion(config));
        } catch (PluginFailure e) {
            throw e.toCniException();
        }
    }

    private void undoStopped(String type, byte[] config, CniException failure) {
        boolean interrupted = Thread.interrupted();
        try {
            run(type, Command.DEL, config);
        } catch (PluginFailure e) {
            failure.addSuppressed(e.toCniException());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void check(String type, byte[] config) throws CniException {
        call(type, Command.CHECK, config);
    }

    @Override
    public void del(String type, byte[] config) throws CniException {
        call(type, Command.DEL, config);
    }

    @Override
    public void gc(String type, byte[] config) throws CniException {
        call(type, Command.GC, config);
    }

    @Override
    public void status(String type, byte[] config) throws CniException {
        call(type, Command.STATUS, config);
    }

    private byte[] call(String type, Command command, byte[] config) throws CniException {
        try {
            return run(type, command, config);
        } catch (PluginFailure e) {
            throw e.toCniException();
        }
    }

    private byte[] run(String type, Command command, byte[] config) throws PluginFailure {
        Path executable = PluginLocator.find(type, cniPath);
        Map<String, String> delegateEnv = new HashMap<>(env);
        delegateEnv.put("CNI_COMMAND", command.name());
        // Reading the launcher marker costs a file read: skip it when nothing could run in-process anyway.
        Optional<String> launcherType = inProcess.types().isEmpty() ? Optional.<String>empty()
                : JcniLaunchers.pluginType(executable);
        if (launcherType.isPresent()) {
            Optional<InProcessPlugin> plugin = inProcess.find(launcherType.get());
            if (plugin.isPresent()) {
                return invoker.inProcess(launcherType.get(), plugin.get(), config, delegateEnv);
            }
        }
        return invoker.exec(executable, config, delegateEnv, Map.of(), 0);
    }
}
