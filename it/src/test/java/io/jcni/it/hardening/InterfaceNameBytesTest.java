package io.jcni.it.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CNI_IFNAME as bytes, exec'd as a runtime execs host-local: without {@code LANG} (runtimes rarely set one), where
 * the JVM decodes the environment as ASCII. Go's host-local stores whatever bytes it gets. jcni stored U+FFFD for
 * every byte it could not decode, so a data directory shared with Go held two different names for one attachment.
 * Now a name that is UTF-8 is stored as Go stores it, whatever the locale, and one that is not is refused with code 4.
 */
class InterfaceNameBytesTest {
    private static final String RANGES = "[[{\"subnet\":\"10.216.60.0/24\"}]]";

    @TempDir
    Path tmp;

    @BeforeEach
    void prerequisites() {
        Prerequisites.assumeDistPlugins("host-local");
        Prerequisites.assumeReferencePlugins("host-local");
    }

    private String conf() {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"bytes\",\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\","
                + "\"dataDir\":\"" + tmp.resolve("data") + "\",\"ranges\":" + RANGES + "}}";
    }

    /** ADD with CNI_IFNAME set to the bytes {@code printf} makes of {@code printfBytes}, in the C locale. */
    private ProcessResult add(Path plugin, String containerId, String printfBytes) {
        String script = "exec env -u LANG -u LC_ALL -u LC_CTYPE CNI_IFNAME=\"$(printf '" + printfBytes + "')\" \"$0\"";
        Map<String, String> env = Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", containerId, "CNI_NETNS",
                "/var/run/netns/jcni-bytes-none", "CNI_PATH", Locations.distCniBin().toString());
        return Processes.run(List.of("sh", "-c", script, plugin.toString()), env, conf(), Duration.ofSeconds(60));
    }

    /** The bytes after {@code "<id>\r\n"} in the reservation file holding {@code containerId}. */
    private String storedName(String containerId) throws Exception {
        try (Stream<Path> files = Files.list(tmp.resolve("data/bytes"))) {
            for (Path file : files.toList()) {
                byte[] content = Files.readAllBytes(file);
                String prefix = containerId + "\r\n";
                if (new String(content, java.nio.charset.StandardCharsets.ISO_8859_1).startsWith(prefix)) {
                    return HexFormat.of().formatHex(content, prefix.length(), content.length);
                }
            }
        }
        return null;
    }

    @Test
    void aUtf8NameIsStoredAsGoStoresItAndOneThatIsNotUtf8IsRefusedWithCode4() throws Exception {
        ProcessResult go = add(Locations.referencePlugin("host-local"), "go-utf8", "e\\303\\251");
        assertThat(go.exitCode()).as(go.describe()).isZero();
        ProcessResult ours = add(Locations.distPlugin("host-local"), "jcni-utf8", "e\\303\\251");
        assertThat(ours.exitCode()).as(ours.describe()).isZero();
        assertThat(storedName("jcni-utf8")).as("\"eé\" in UTF-8, as Go stored it").isEqualTo("65c3a9")
                .isEqualTo(storedName("go-utf8"));

        ProcessResult goInvalid = add(Locations.referencePlugin("host-local"), "go-bad", "e\\377");
        assertThat(goInvalid.exitCode()).as("Go keeps the bytes: %s", goInvalid.describe()).isZero();
        assertThat(storedName("go-bad")).isEqualTo("65ff");

        ProcessResult refused = add(Locations.distPlugin("host-local"), "jcni-bad", "e\\377");
        assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
        assertThat(Json.parse(refused.stdout()).path("code").asInt()).isEqualTo(4);
        assertThat(Json.parse(refused.stdout()).path("msg").asText()).isEqualTo("interface name is not valid UTF-8");
        assertThat(storedName("jcni-bad")).as("nothing stored").isNull();
    }
}
