package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.internal.ffm.NativeAccess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The probe names the exact flag to add, for a named module and on the class path, and nothing native runs first. */
class NativeAccessProbeTest {

    private static String java(List<String> options) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "--illegal-native-access=deny"));
        command.addAll(options);
        Kernel.Result r = Kernel.run(command.toArray(String[]::new));
        assertThat(r.err()).as("nothing on stderr (no JVM warning, no stack trace)").isEmpty();
        return r.out();
    }

    private static String classes() throws Exception {
        return Path.of(NativeAccess.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static String testClasses() throws Exception {
        return Path.of(ProbeMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    @Test
    void withoutTheGrantTheNamedModuleFailsNamingTheFlag() throws Exception {
        String out = java(List.of("-p", classes(), "--patch-module", "io.jcni.netlink=" + testClasses(),
                "-m", "io.jcni.netlink/io.jcni.netlink.ProbeMain"));
        assertThat(out).contains("unavailability: native access is not enabled for module io.jcni.netlink: "
                + "start java with --enable-native-access=io.jcni.netlink");
        assertThat(out).contains("kind UNAVAILABLE: netlink native layer: native access is not enabled");
        assertThat(out).doesNotContain("opened");
    }

    @Test
    void onTheClassPathTheMessageNamesAllUnnamed() throws Exception {
        String out = java(List.of("-cp", classes() + ":" + testClasses(), "io.jcni.netlink.ProbeMain"));
        assertThat(out).contains("native access is not enabled for the class path: "
                + "start java with --enable-native-access=ALL-UNNAMED");
    }

    @Test
    void withTheGrantAHandleOpens() throws Exception {
        String out = java(List.of("--enable-native-access=io.jcni.netlink", "-p", classes(), "--patch-module",
                "io.jcni.netlink=" + testClasses(), "-m", "io.jcni.netlink/io.jcni.netlink.ProbeMain"));
        assertThat(out).contains("unavailability: none").contains("opened, lo index 1");
    }
}
