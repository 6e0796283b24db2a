package io.jcni.plugins.sdk;

import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs a {@link Skel} in-process and captures what an exec would show. */
final class SkelHarness {

    /** What one run produced. */
    record Outcome(int status, String stdout, String stderr) {
    }

    /** A plugin that records its calls and does what it is told. */
    static final class RecordingPlugin implements CniPlugin {
        final List<CniRequest> calls = new ArrayList<>();
        CniException failWith;
        RuntimeException crashWith;
        CniResult result = sampleResult();

        @Override
        public CniResult add(CniRequest request) throws CniException {
            return record(request) ? result : null;
        }

        @Override
        public void del(CniRequest request) throws CniException {
            record(request);
        }

        @Override
        public void check(CniRequest request) throws CniException {
            record(request);
        }

        @Override
        public void gc(CniRequest request) throws CniException {
            record(request);
        }

        @Override
        public void status(CniRequest request) throws CniException {
            record(request);
        }

        private boolean record(CniRequest request) throws CniException {
            calls.add(request);
            if (failWith != null) {
                throw failWith;
            }
            if (crashWith != null) {
                throw crashWith;
            }
            return true;
        }
    }

    static Result sampleResult() {
        try {
            return new Result(CniVersion.V1_1_0,
                    List.of(new Interface("eth0", "0a:58:0a:01:00:05", 1400, "/var/run/netns/x", "", "")),
                    List.of(new IpConfig(0, IpPrefix.parse("10.1.0.5/24", "t"), ip("10.1.0.1")),
                            new IpConfig(0, IpPrefix.parse("fd00::5/64", "t"), ip("fd00::1"))),
                    List.of(new Route(IpPrefix.parse("0.0.0.0/0", "t"), null, 0, 0, 0, 100, null)),
                    new Dns(List.of("10.1.0.1"), "", List.of(), List.of()));
        } catch (CniException e) {
            throw new AssertionError(e);
        }
    }

    static InetAddress ip(String text) {
        try {
            return IpText.parseAddress(text, "test");
        } catch (CniException e) {
            throw new AssertionError(e);
        }
    }

    /** A complete ADD environment; tests remove or change entries. */
    static Map<String, String> env(String command) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", "ctr-1");
        env.put("CNI_NETNS", "/var/run/netns/does-not-exist");
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", "/opt/cni/bin");
        return env;
    }

    static String config(String version) {
        return "{\"cniVersion\":\"" + version + "\",\"name\":\"net1\",\"type\":\"recorder\"}";
    }

    static Outcome run(Skel skel, Map<String, String> env, String stdin) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = skel.run(env, stdin.getBytes(StandardCharsets.UTF_8), out, err);
        return new Outcome(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private SkelHarness() {
    }
}
