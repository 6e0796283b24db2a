import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Lists every skipped test of the run at its end, with its reason and their count, on stderr and in
 * {@code target/skipped-<plugin mode>.txt}: a skip must be visible, and the only ones allowed (see
 * {@code Prerequisites} and {@code NoSilentSkipTest}) are for want of root and for a kernel feature this machine kind
 * lacks. A skip for any other reason is marked NOT ALLOWED in the list.
 *
 * <p>Registered as a JUnit Platform listener through META-INF/services, from the unnamed package for the reason
 * {@code HostStateGuardRegistration} gives.
 */
public final class SkipReport implements TestExecutionListener {
    /** How JUnit words an assumption's abort. */
    private static final String ASSUMPTION = "Assumption failed: ";

    private final List<String> skipped = new ArrayList<>();

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        record(test, reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            record(test, result.getThrowable().map(Throwable::getMessage).orElse("(no reason given)"));
        }
    }

    private synchronized void record(TestIdentifier test, String reason) {
        String why = reason == null ? "(no reason given)" : reason.startsWith(ASSUMPTION)
                ? reason.substring(ASSUMPTION.length()) : reason;
        boolean allowed = why.startsWith(Prerequisites.KERNEL) || why.startsWith(Prerequisites.NOT_ROOT);
        skipped.add((allowed ? "" : "NOT ALLOWED: ") + why + " -- " + test.getLegacyReportingName() + " ["
                + test.getUniqueId() + "]");
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan plan) {
        StringBuilder report = new StringBuilder();
        report.append("jcni it (plugin mode ").append(Locations.skelMode()).append("): ").append(skipped.size())
                .append(skipped.size() == 1 ? " test skipped" : " tests skipped").append('\n');
        for (String line : skipped) {
            report.append("  ").append(line).append('\n');
        }
        System.err.print(report);
        Path file = Path.of(System.getProperty("jcni.it.skipReport", "target/skipped-" + (Locations.viaService() ? "service" : "exec")
                + ".txt"));
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, report);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
