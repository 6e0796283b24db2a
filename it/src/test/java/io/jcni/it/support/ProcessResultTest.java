package io.jcni.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A crashed JVM's account carries the head of its error report, which CI would otherwise throw away with the tree. */
class ProcessResultTest {
    @TempDir
    Path tmp;

    @Test
    void aCrashedJvmsAccountCarriesTheHeadOfItsErrorReport() throws Exception {
        Path report = tmp.resolve("hs_err_pid42.log");
        StringBuilder lines = new StringBuilder("#\n# A fatal error has been detected\n");
        for (int i = 0; i < 400; i++) {
            lines.append("line ").append(i).append('\n');
        }
        Files.writeString(report, lines);
        String stdout = "#\n# An error report file with more information is saved as:\n# " + report + "\n#\n";
        String account = new ProcessResult(List.of("portmap"), 134, stdout, "", Duration.ofMillis(853), false)
                .describe();
        assertThat(account).contains("exited 134 after 853 ms").contains("--- " + report)
                .contains("# A fatal error has been detected").contains("line 147").doesNotContain("line 148");
    }

    @Test
    void anOrdinaryFailureIsAccountedAsBefore() {
        String account = new ProcessResult(List.of("x"), 1, "out", "err", Duration.ofMillis(5), false).describe();
        assertThat(account).isEqualTo("[x] exited 1 after 5 ms%n--- stdout ---%nout%n--- stderr ---%nerr".formatted());
    }

    @Test
    void aReportThatCannotBeReadIsNamedNotFatal() {
        String stdout = "# An error report file with more information is saved as:\n# " + tmp.resolve("gone.log");
        String account = new ProcessResult(List.of("x"), 134, stdout, "", Duration.ofMillis(5), false).describe();
        assertThat(account).contains("gone.log: not readable");
    }
}
