package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.runtime.internal.RuntimeLog;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime's own warnings go through {@link System.Logger} ({@code io.jcni.runtime.*}), not to the stderr sink
 * that plugins' stderr goes to. java.logging is in this JVM's module graph (JUnit reads it), so System.Logger is
 * backed by java.util.logging here, and a handler on the logger receives the record itself.
 */
class RuntimeWarningsLogTest {
    /** A 1.0.0 result whose IP names interface 3 of a list of one: libcni accepts it, so does jcni, with a warning. */
    private static final String LENIENT = """
            {"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"/var/run/netns/test"}],\
            "ips":[{"address":"10.1.0.2/24","interface":3}]}""";

    @TempDir
    Path tmp;

    private final List<LogRecord> records = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger jul = Logger.getLogger("io.jcni.runtime.results");

    @BeforeEach
    void listen() {
        jul.addHandler(capture);
        jul.setUseParentHandlers(false);
    }

    @AfterEach
    void stopListening() {
        jul.removeHandler(capture);
        jul.setUseParentHandlers(true);
        RuntimeLog.toConsole(null);
    }

    private CniRuntime runtime(ByteArrayOutputStream stderr) {
        return CniRuntime.create(CniRuntime.Options.of(List.of(tmp.resolve("bin"))).withCacheDir(tmp.resolve("cache"))
                .withStderr(stderr));
    }

    private static NetworkConfigList list() {
        return CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"lenient\",\"plugins\":"
                + "[{\"type\":\"odd\"}]}").getBytes(StandardCharsets.UTF_8));
    }

    private static RuntimeConf rt() {
        return new RuntimeConf("ctr-log", "/var/run/netns/test", "eth0", CniArgs.empty(), JsonObject.EMPTY);
    }

    @Test
    void aResultAcceptedAgainstTheSpecIsAWarningRecordOfTheResultsLogger() throws Exception {
        FakePlugin.create(Files.createDirectory(tmp.resolve("bin")), "odd").answer("ADD", LENIENT)
                .stderr("ADD", "the plugin's own stderr\n");
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        try (CniRuntime runtime = runtime(stderr)) {
            runtime.addNetworkList(list(), rt());
        }

        assertThat(records).hasSize(1);
        LogRecord record = records.getFirst();
        assertThat(record.getLevel()).isEqualTo(Level.WARNING);
        assertThat(record.getLoggerName()).isEqualTo("io.jcni.runtime.results");
        assertThat(record.getMessage()).startsWith("plugin type=\"odd\" (add) printed ")
                .contains("interface").endsWith("; accepted and passed on, as Go libcni does");
        // The sink has the plugin's stderr, and only that.
        assertThat(stderr.toString(StandardCharsets.UTF_8)).isEqualTo("the plugin's own stderr\n");
    }

    @Test
    void theCommandLineTakesTheWarningsOverAsItsOwnLines() throws Exception {
        FakePlugin.create(Files.createDirectory(tmp.resolve("bin")), "odd").answer("ADD", LENIENT);
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        RuntimeLog.toConsole(new PrintStream(console, true, StandardCharsets.UTF_8));
        try (CniRuntime runtime = runtime(new ByteArrayOutputStream())) {
            runtime.addNetworkList(list(), rt());
        }

        assertThat(records).isEmpty();
        assertThat(console.toString(StandardCharsets.UTF_8).lines().toList()).singleElement().asString()
                .startsWith("jcni: warning: plugin type=\"odd\" (add) printed ")
                .endsWith("; accepted and passed on, as Go libcni does");
    }
}
