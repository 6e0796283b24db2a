package io.jcni.plugins.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.NetNs;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Skel;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Dns;
import io.jcni.spec.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Test worlds for the shared helpers: two fresh anonymous namespaces standing for "host" and "container" (nothing
 * touches the real host), and a skel around a scripted handler, so that a helper runs with a real request, rollback
 * and log, exactly as in a plugin.
 */
public final class Worlds implements AutoCloseable {
    public final NetNs hostNs;
    public final NetNs containerNs;
    public final Namespace host;
    public final Namespace container;

    private Worlds() {
        hostNs = NetNs.create();
        containerNs = NetNs.create();
        host = Namespace.borrowing(hostNs);
        container = Namespace.borrowing(containerNs);
    }

    /** Skips without root (namespaces need CAP_SYS_ADMIN, links CAP_NET_ADMIN). */
    public static Worlds create() throws Exception {
        assumeTrue(root(), "needs root: creates network namespaces");
        return new Worlds();
    }

    /** True when this JVM's effective user is root (the second Uid field of /proc/self/status). */
    public static boolean root() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return line.split("\\s+")[2].equals("0");
            }
        }
        return false;
    }

    @Override
    public void close() {
        try {
            host.close();
            container.close();
        } finally {
            hostNs.close();
            containerNs.close();
        }
    }

    /** A handler step for {@link #add}. */
    @FunctionalInterface
    public interface Step {
        CniResult run(CniRequest request) throws Exception;
    }

    /** Runs {@code step} as the ADD handler of a plugin (its rollback runs if it throws). */
    public static PluginCall.Outcome add(Step step) {
        return add(step, "{\"cniVersion\":\"1.1.0\",\"name\":\"helpers\",\"type\":\"t\"}");
    }

    public static PluginCall.Outcome add(Step step, String conf) {
        CniPlugin plugin = new CniPlugin() {
            @Override
            public CniResult add(CniRequest request) throws CniException {
                try {
                    CniResult result = step.run(request);
                    return result != null ? result : new Result(List.of(), List.of(), List.of(), Dns.EMPTY);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void del(CniRequest request) {
            }

            @Override
            public void check(CniRequest request) {
            }
        };
        return PluginCall.of("ADD").netns("/proc/self/ns/net").env("CNI_NETNS_OVERRIDE", "1").stdin(conf)
                .run(Skel.of("t", plugin, CniVersion.SUPPORTED));
    }
}
