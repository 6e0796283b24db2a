package io.jcni.plugins.sdk;

import static io.jcni.plugins.sdk.SkelHarness.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.sdk.SkelHarness.Outcome;
import io.jcni.plugins.sdk.SkelHarness.RecordingPlugin;
import io.jcni.runtime.InProcessPlugins;
import io.jcni.runtime.JcniLaunchers;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Command;
import io.jcni.spec.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** IPAM delegation through the SDK: in-process for jcni launchers, exec otherwise, and IPAM DEL on a failed ADD. */
class DelegationTest {
    static final String CONFIG = """
            {"cniVersion":"1.0.0","name":"net1","type":"delegator",\
            "ipam":{"type":"rec-ipam","subnet":"10.1.0.0/24"}}""";

    @TempDir
    Path cniPath;

    /** A plugin that delegates to its IPAM, then does what it is told. */
    static final class Delegator implements CniPlugin {
        CniException failAfterIpam;
        final List<String> steps = new ArrayList<>();

        @Override
        public CniResult add(CniRequest request) throws CniException {
            CniResult ipam = request.ipam().add();
            steps.add("ipam added");
            request.rollback().onFailure("note", () -> steps.add("own undo"));
            if (failAfterIpam != null) {
                throw failAfterIpam;
            }
            return ipam;
        }

        @Override
        public void del(CniRequest request) throws CniException {
            request.ipam().del();
        }

        @Override
        public void check(CniRequest request) throws CniException {
            request.ipam().check();
        }

        @Override
        public void gc(CniRequest request) throws CniException {
            request.ipam().gc();
        }

        @Override
        public void status(CniRequest request) throws CniException {
            request.ipam().status();
        }
    }

    /** A file in CNI_PATH that carries the jcni launcher marker, but fails loudly if it is ever exec'd. */
    void jcniLauncher(String type) throws IOException {
        Path file = cniPath.resolve(type);
        Files.writeString(file, "#!/bin/sh\n" + JcniLaunchers.markerLine(type) + "\n"
                + "echo '{\"code\":123,\"msg\":\"exec'\"'\"'d instead of in-process\"}'; exit 1\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** A shell IPAM plugin (exec'd): appends "<command> <pid>" to a log and answers ADD with a fixed result. */
    Path shellIpam(String type) throws IOException {
        Path log = cniPath.resolve(type + ".log");
        Path file = cniPath.resolve(type);
        Files.writeString(file, "#!/bin/sh\ncat > /dev/null\necho \"$CNI_COMMAND $$\" >> '" + log + "'\n"
                + "if [ \"$CNI_COMMAND\" = ADD ]; then echo '{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":"
                + "\"10.1.0.7/24\",\"gateway\":\"10.1.0.1\"}]}'; fi\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return log;
    }

    Map<String, String> env(String command) {
        Map<String, String> env = SkelHarness.env(command);
        env.put("CNI_PATH", cniPath.toString());
        return env;
    }

    @Test
    void aJcniLauncherInCniPathRunsInThisJvmWithTheSameEnvironmentAndStdin() throws Exception {
        jcniLauncher("rec-ipam");
        RecordingPlugin ipam = new RecordingPlugin();
        Skel ipamSkel = Skel.of("rec-ipam", ipam, CniVersion.SUPPORTED);
        Delegator delegator = new Delegator();
        Skel skel = Skel.of("delegator", delegator, CniVersion.SUPPORTED)
                .withDelegates(InProcessPlugins.of(Map.of("rec-ipam", ipamSkel)));

        Outcome outcome = run(skel, env("ADD"), CONFIG);

        assertThat(outcome.status()).as(outcome.toString()).isZero();
        assertThat(ipam.calls).singleElement().satisfies(call -> {
            assertThat(call.command()).isEqualTo(Command.ADD);
            assertThat(new String(call.stdin(), StandardCharsets.UTF_8)).isEqualTo(CONFIG);
            assertThat(call.containerId()).isEqualTo("ctr-1");
            assertThat(call.cniPathText()).isEqualTo(cniPath.toString());
        });
        Result printed = (Result) CniJson.decodeResult(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(printed.ips()).isEqualTo(SkelHarness.sampleResult().ips());
    }

    @Test
    void inProcessDelegatesLogToThePluginsStderr() throws Exception {
        jcniLauncher("rec-ipam");
        Skel skel = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED).withDelegates(InProcessPlugins.of(
                Map.of("rec-ipam", Skel.of("rec-ipam", new RecordingPlugin(), CniVersion.SUPPORTED))));
        Map<String, String> env = env("ADD");
        env.put(PluginLog.DEBUG_ENV, "1");
        Outcome outcome = run(skel, env, CONFIG);
        long pid = ProcessHandle.current().pid();
        assertThat(outcome.stderr()).contains("delegator: ADD in-process, pid " + pid)
                .contains("rec-ipam: ADD in-process, pid " + pid);
    }

    @Test
    void aFailureAfterIpamAddReleasesTheAddressesBeforeTheErrorIsReturned() throws Exception {
        jcniLauncher("rec-ipam");
        RecordingPlugin ipam = new RecordingPlugin();
        Delegator delegator = new Delegator();
        delegator.failAfterIpam = new CniException(117, "veth setup failed");
        Skel skel = Skel.of("delegator", delegator, CniVersion.SUPPORTED).withDelegates(
                InProcessPlugins.of(Map.of("rec-ipam", Skel.of("rec-ipam", ipam, CniVersion.SUPPORTED))));

        Outcome outcome = run(skel, env("ADD"), CONFIG);

        CniError error = CniJson.decodeError(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(error.code()).isEqualTo(117);
        assertThat(ipam.calls).extracting(CniRequest::command).containsExactly(Command.ADD, Command.DEL);
        assertThat(new String(ipam.calls.get(1).stdin(), StandardCharsets.UTF_8)).isEqualTo(CONFIG);
        assertThat(delegator.steps).containsExactly("ipam added", "own undo");
    }

    @Test
    void aSuccessfulAddIsCommittedAndReleasesNothing() throws Exception {
        jcniLauncher("rec-ipam");
        RecordingPlugin ipam = new RecordingPlugin();
        Delegator delegator = new Delegator();
        Skel skel = Skel.of("delegator", delegator, CniVersion.SUPPORTED).withDelegates(
                InProcessPlugins.of(Map.of("rec-ipam", Skel.of("rec-ipam", ipam, CniVersion.SUPPORTED))));
        assertThat(run(skel, env("ADD"), CONFIG).status()).isZero();
        assertThat(ipam.calls).extracting(CniRequest::command).containsExactly(Command.ADD);
        assertThat(delegator.steps).containsExactly("ipam added");
    }

    @Test
    void anIpamErrorComesBackUnchangedAndNothingIsReleased() throws Exception {
        jcniLauncher("rec-ipam");
        RecordingPlugin ipam = new RecordingPlugin();
        ipam.failWith = new CniException(CniError.TRY_AGAIN_LATER, "store busy", "lock held");
        Skel skel = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED).withDelegates(
                InProcessPlugins.of(Map.of("rec-ipam", Skel.of("rec-ipam", ipam, CniVersion.SUPPORTED))));
        CniError error = CniJson.decodeError(run(skel, env("ADD"), CONFIG).stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(error.code()).isEqualTo(CniError.TRY_AGAIN_LATER);
        assertThat(error.msg()).isEqualTo("store busy");
        assertThat(error.details()).isEqualTo("lock held");
        assertThat(ipam.calls).extracting(CniRequest::command).containsExactly(Command.ADD);
    }

    @Test
    void aDelegateThatIsNotAJcniLauncherIsExecdAndReleasedByExecToo() throws Exception {
        Path log = shellIpam("rec-ipam");
        Delegator delegator = new Delegator();
        delegator.failAfterIpam = new CniException(117, "veth setup failed");
        // Registered in-process, but the executable has no marker: it must be exec'd.
        RecordingPlugin inProcess = new RecordingPlugin();
        Skel skel = Skel.of("delegator", delegator, CniVersion.SUPPORTED).withDelegates(
                InProcessPlugins.of(Map.of("rec-ipam", Skel.of("rec-ipam", inProcess, CniVersion.SUPPORTED))));

        Outcome outcome = run(skel, env("ADD"), CONFIG);

        assertThat(outcome.status()).isEqualTo(1);
        assertThat(inProcess.calls).isEmpty();
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("ADD ");
        assertThat(lines.get(1)).startsWith("DEL ");
        assertThat(lines.get(0)).isNotEqualTo("ADD " + ProcessHandle.current().pid());
    }

    @Test
    void delCheckGcAndStatusReachTheIpamPlugin() throws Exception {
        Path log = shellIpam("rec-ipam");
        Skel skel = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED);
        String v110 = CONFIG.replace("1.0.0", "1.1.0");
        for (String command : List.of("DEL", "CHECK", "GC", "STATUS")) {
            assertThat(run(skel, env(command), v110).status()).as(command).isZero();
        }
        assertThat(Files.readAllLines(log)).extracting(line -> line.split(" ")[0])
                .containsExactly("DEL", "CHECK", "GC", "STATUS");
    }

    @Test
    void aMissingIpamTypeIsAConfigError() throws Exception {
        String noIpam = "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":\"delegator\"}";
        Outcome outcome = run(Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED), env("ADD"), noIpam);
        CniError error = CniJson.decodeError(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(error.code()).isEqualTo(7);
        assertThat(error.msg()).isEqualTo("ipam.type: missing plugin type");
    }

    @Test
    void aMissingIpamExecutableIsReportedAsLibcniDoes() throws Exception {
        Outcome outcome = run(Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED), env("ADD"), CONFIG);
        CniError error = CniJson.decodeError(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(error.msg()).contains("failed to find plugin \"rec-ipam\" in path [" + cniPath + "]");
    }
}
