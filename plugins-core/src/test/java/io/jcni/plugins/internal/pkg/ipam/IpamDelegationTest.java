package io.jcni.plugins.internal.pkg.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link IpamDelegation}: GC, STATUS and CHECK reach the IPAM plugin (an exec'd recording script here). */
class IpamDelegationTest {
    @TempDir
    Path tmp;

    static final class Forwarding implements CniPlugin {
        @Override
        public CniResult add(CniRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void del(CniRequest request) {
        }

        @Override
        public void check(CniRequest request) throws CniException {
            IpamDelegation.check(request);
        }

        @Override
        public void gc(CniRequest request) throws CniException {
            IpamDelegation.gc(request);
        }

        @Override
        public void status(CniRequest request) throws CniException {
            IpamDelegation.status(request);
        }
    }

    PluginCall.Outcome call(String command, String conf) {
        return PluginCall.of(command).env("CNI_PATH", tmp.toString()).stdin(conf)
                .run(Skel.of("fwd", new Forwarding(), CniVersion.SUPPORTED));
    }

    @Test
    void gcAndStatusAreTheIpamPluginsAnswer() throws Exception {
        Path record = tmp.resolve("record");
        Path ipam = tmp.resolve("fake-ipam");
        Files.writeString(ipam, """
                #!/bin/sh
                cat > /dev/null
                echo "$CNI_COMMAND" >> %s
                if [ "$CNI_COMMAND" = STATUS ]; then
                  printf '{"cniVersion":"1.1.0","code":50,"msg":"ipam not ready"}'
                  exit 1
                fi
                """.formatted(record));
        Files.setPosixFilePermissions(ipam, PosixFilePermissions.fromString("rwxr-xr-x"));
        String conf = """
                {"cniVersion":"1.1.0","name":"n","type":"fwd","ipam":{"type":"fake-ipam"},\
                "cni.dev/valid-attachments":[]}""";

        call("GC", conf).ok();
        CniError status = call("STATUS", conf).error();
        assertThat(status.code()).isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
        assertThat(status.msg()).isEqualTo("ipam not ready");
        assertThat(Files.readAllLines(record)).containsExactly("GC", "STATUS");
    }

    @Test
    void withoutIpamThereIsNothingToAskAndThePluginIsReady() throws Exception {
        String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"fwd\"}";
        call("GC", conf).ok();
        call("STATUS", conf).ok();
    }

    @Test
    void checkAsksTheIpamPluginOnlyWhenTheConfigurationHasOne() throws Exception {
        Path record = tmp.resolve("record");
        Path ipam = tmp.resolve("fake-ipam");
        Files.writeString(ipam, """
                #!/bin/sh
                cat > /dev/null
                echo "$CNI_COMMAND" >> %s
                printf '{"cniVersion":"1.1.0","code":999,"msg":"address not reserved"}'
                exit 1
                """.formatted(record));
        Files.setPosixFilePermissions(ipam, PosixFilePermissions.fromString("rwxr-xr-x"));

        CniError failed = call("CHECK", """
                {"cniVersion":"1.1.0","name":"n","type":"fwd",\
                "ipam":{"type":"fake-ipam"}}""").error();
        assertThat(failed.code()).isEqualTo(CniError.INTERNAL);
        assertThat(failed.msg()).isEqualTo("address not reserved");
        call("CHECK", "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"fwd\"}").ok();
        assertThat(Files.readAllLines(record)).containsExactly("CHECK");
    }
}
