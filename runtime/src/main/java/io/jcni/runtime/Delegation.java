package io.jcni.runtime;

import io.jcni.runtime.internal.DelegationImpl;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import java.io.OutputStream;
import java.util.Map;

/**
 * Delegation to another plugin (usually IPAM) as the spec describes: the delegate is found in CNI_PATH (taken from
 * {@code env}) and gets the same environment, with CNI_COMMAND set to the verb, and the given config bytes on stdin.
 *
 * <p>If the executable found is a jcni launcher ({@link JcniLaunchers#pluginType}) whose type is in the given
 * {@link InProcessPlugins}, it runs in this JVM; otherwise it is exec'd by the runtime's exec engine (spawn, stdin,
 * stderr passed through, "text file busy" retry, libcni's decoding of failures). A delegate missing from CNI_PATH is an
 * error for every verb, DEL included: the calling plugin decides whether to ignore it.
 *
 * <p>Failures come back as {@link CniException}: the delegate's own error result with code, msg and details
 * unchanged; a delegate that failed without a readable error gets code 0 with libcni's text (e.g.
 * {@code netplugin failed with no error message: signal: killed}); a result that cannot be decoded code 6; a delegate
 * not found code 999 ({@code failed to find plugin "x" in path [/opt/cni/bin]}), as a Go plugin's skel reports it.
 * Instances are immutable and thread-safe.
 */
public interface Delegation {

    /** Delegation with the delegates' stderr going to this process's {@link System#err}. */
    static Delegation create(Map<String, String> env, InProcessPlugins inProcess) {
        return new DelegationImpl(env, inProcess, System.err);
    }

    /**
     * Delegation with the delegates' stderr going to {@code stderr}: an in-process plugin passes the stream it was
     * given, so its delegates log where it logs.
     */
    static Delegation create(Map<String, String> env, InProcessPlugins inProcess, OutputStream stderr) {
        return new DelegationImpl(env, inProcess, stderr);
    }

    /**
     * ADD: the delegate's result, as it printed it (a missing {@code cniVersion} is the config's). A delegate that was
     * killed while its ADD ran (the calling thread was interrupted: a runtime's deadline or cancellation of the
     * in-process plugin that delegates) is sent DEL before the failure is thrown, since it could not undo its own
     * partial work; one that failed by itself is not.
     */
    CniResult add(String type, byte[] config) throws CniException;

    void check(String type, byte[] config) throws CniException;

    void del(String type, byte[] config) throws CniException;

    void gc(String type, byte[] config) throws CniException;

    void status(String type, byte[] config) throws CniException;
}
