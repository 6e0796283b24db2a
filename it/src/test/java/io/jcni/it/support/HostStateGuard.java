package io.jcni.it.support;

import io.jcni.it.support.HostState.Change;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The suite-wide promise that integration tests leave the machine that runs them alone: before each test class the
 * real host's {@link HostState} is read and a {@link LinkMonitor} started; after it, the state is read again and
 * every difference is judged. Registered for every class of the suite by {@code HostStateGuardRegistration}
 * (ServiceLoader, enabled in {@code junit-platform.properties}); it replaces per-class leak checks.
 *
 * <p>The verdict, as a failure of the class naming each change:
 * <ul>
 * <li>a change this JVM is responsible for always fails: a namespace or link whose name {@link Names} handed out here,
 * a veth whose peer is in such a namespace, anything about such a link, and any such link that appeared on the host
 * during the class even if it was gone by its end (unless the class is marked {@link MakesHostLinksOnPurpose});</li>
 * <li>any other change (a sysctl such as {@code net.ipv4.ip_forward}, a route, a rule, a file under /run/cni, a link
 * of unknown origin) fails too, unless other CNI test activity was seen on the machine during the class: a process of
 * another test run, benchmark or plugin outside this JVM's process tree, or a namespace that came or went without being
 * ours. Such changes cannot be told apart from that activity's, so they are printed as a warning that names it.
 * {@code -Djcni.it.hostGuard=strict} fails them regardless.</li>
 * </ul>
 */
public final class HostStateGuard implements BeforeAllCallback, AfterAllCallback {

    /** System property: {@code auto} (the default, described above) or {@code strict}. */
    public static final String MODE_PROPERTY = "jcni.it.hostGuard";

    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(HostStateGuard.class);
    private static final Set<String> GUARDED = ConcurrentHashMap.newKeySet();

    /** Command lines that belong to CNI test activity (test runs, benchmarks, plugins and plugin services, namespace
     *  tools). */
    private static final Pattern ACTIVITY = Pattern.compile(
            "surefire|ForkedBooter|org\\.openjdk\\.jmh|plexus-classworlds|/cni/bin/|/cni/jvm/|/usr/lib/cni/"
                    + "|libcni-driver|internal\\.service\\.ServiceMain|\\bip netns\\b|\\bip -n\\b|hyperfine");

    /** Whether the guard has watched (or is watching) this test class in this JVM. */
    public static boolean guards(Class<?> testClass) {
        return GUARDED.contains(testClass.getName());
    }

    private record Watch(HostState before, LinkMonitor monitor, Set<String> activity) {}

    @Override
    public void beforeAll(ExtensionContext context) {
        strict(); // a bad -D value fails the class before anything is read
        HostState before = HostState.capture();
        Set<String> links = new HashSet<>();
        for (String key : before.entries().keySet()) {
            if (key.startsWith("link ")) {
                links.add(key.substring(5));
            }
        }
        Set<String> activity = new LinkedHashSet<>(foreignProcesses());
        context.getStore(STORE).put(Watch.class, new Watch(before, LinkMonitor.start(links), activity));
        GUARDED.add(context.getRequiredTestClass().getName());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Watch watch = context.getStore(STORE).remove(Watch.class, Watch.class);
        if (watch == null) {
            return;
        }
        watch.monitor().close();
        HostState after = HostState.capture();
        watch.activity().addAll(foreignProcesses());
        Class<?> testClass = context.getRequiredTestClass();
        List<String> transientLinks = testClass.isAnnotationPresent(MakesHostLinksOnPurpose.class) ? List.of()
                : watch.monitor().seen();
        Verdict verdict = judge(testClass.getName(), watch.before(), after, transientLinks,
                List.copyOf(watch.activity()), strict());
        if (verdict.fails()) {
            throw new AssertionError(verdict.message());
        }
        if (!verdict.message().isEmpty()) {
            System.err.println(verdict.message());
            context.publishReportEntry("jcni-host-guard", verdict.message());
        }
    }

    private static boolean strict() {
        String mode = System.getProperty(MODE_PROPERTY, "auto");
        return switch (mode) {
            case "auto" -> false;
            case "strict" -> true;
            default -> throw new IllegalArgumentException("-D" + MODE_PROPERTY + " must be auto or strict, not '"
                    + mode + "'");
        };
    }

    /**
     * What the guard concluded for one class.
     *
     * @param message the failure message, the warning, or "" when nothing changed
     */
    public record Verdict(boolean fails, String message, List<String> ours, List<String> others) {}

    /**
     * Judges the changes between two snapshots of the host (see the class comment).
     *
     * @param transientLinks links of this JVM's making that appeared on the host meanwhile ({@link LinkMonitor})
     * @param activity other CNI test activity seen on the machine meanwhile, by process
     */
    public static Verdict judge(String where, HostState before, HostState after, List<String> transientLinks,
            List<String> activity, boolean strict) {
        List<Change> changes = after.changesSince(before);
        Set<String> cameOrWent = new HashSet<>();
        for (Change c : changes) {
            if (c.key().startsWith("link ") && (c.added() || c.removed())) {
                cameOrWent.add(c.subject());
            }
        }
        List<String> ours = new ArrayList<>();
        List<String> others = new ArrayList<>();
        List<String> evidence = new ArrayList<>(activity);
        int folded = 0;
        for (Change c : changes) {
            String subject = c.subject();
            boolean entry = c.key().startsWith("link ") || c.key().startsWith("netns ");
            if (!entry && subject != null && cameOrWent.contains(subject)) {
                folded++;
                continue;
            }
            if (responsible(subject, before, after)) {
                ours.add(c.toString());
            } else {
                others.add(c.toString());
                if (c.key().startsWith("netns ")) {
                    evidence.add("namespace " + subject + (c.added() ? " appeared" : " vanished")
                            + " (not made by this JVM)");
                }
            }
        }
        for (String link : transientLinks) {
            String name = link.split(" ")[0];
            if (!cameOrWent.contains(name)) {
                ours.add("+- link " + link + " came and went during the class");
            }
        }
        if (ours.isEmpty() && others.isEmpty()) {
            return new Verdict(false, "", ours, others);
        }
        boolean excused = ours.isEmpty() && !strict && !evidence.isEmpty();
        StringBuilder m = new StringBuilder();
        if (excused) {
            m.append("jcni host guard: the host changed while ").append(where).append(" ran, but other CNI test")
                    .append(" activity on this machine may have done it, so the class is not failed (-D")
                    .append(MODE_PROPERTY).append("=strict fails it):\n");
        } else {
            m.append(where).append(" changed the host it runs on: plugins under test must run in a TestHost")
                    .append(" namespace, and whatever a test makes on the host must be gone when it ends.\n");
        }
        if (!ours.isEmpty()) {
            m.append("Made by this JVM:\n");
            ours.forEach(line -> m.append("  ").append(line).append('\n'));
        }
        if (!others.isEmpty()) {
            m.append(ours.isEmpty() ? "Changes:\n" : "Also changed:\n");
            others.forEach(line -> m.append("  ").append(line).append('\n'));
        }
        if (folded > 0) {
            m.append("  (and ").append(folded)
                    .append(" addresses, routes and sysctls of the links that came or went)\n");
        }
        if (!evidence.isEmpty()) {
            m.append("Other CNI test activity on this machine meanwhile:\n");
            evidence.stream().limit(8).forEach(line -> m.append("  ").append(line).append('\n'));
        }
        return new Verdict(!excused, m.toString().strip(), ours, others);
    }

    /** Whether this JVM made the namespace or link {@code subject}, or it is a veth with its peer in one of ours. */
    private static boolean responsible(String subject, HostState before, HostState after) {
        if (subject == null) {
            return false;
        }
        if (Names.madeHere(subject)) {
            return true;
        }
        for (HostState state : List.of(before, after)) {
            String link = state.get("link " + subject);
            int at = link == null ? -1 : link.indexOf(" peer-netns=");
            if (at >= 0 && Names.madeHere(link.substring(at + " peer-netns=".length()).split(" ")[0])) {
                return true;
            }
        }
        return false;
    }

    /** Processes outside this JVM's own tree (itself, its ancestors, its descendants) that look like CNI tests. */
    static List<String> foreignProcesses() {
        Set<Long> mine = new HashSet<>();
        ProcessHandle self = ProcessHandle.current();
        mine.add(self.pid());
        self.descendants().forEach(p -> mine.add(p.pid()));
        for (Optional<ProcessHandle> p = self.parent(); p.isPresent(); p = p.get().parent()) {
            mine.add(p.get().pid());
        }
        List<String> found = new ArrayList<>();
        ProcessHandle.allProcesses().filter(p -> !mine.contains(p.pid())).forEach(p -> {
            String cmdline = cmdline(p.pid());
            if (ACTIVITY.matcher(cmdline).find()) {
                found.add("process " + p.pid() + ": "
                        + (cmdline.length() > 160 ? cmdline.substring(0, 160) + "..." : cmdline));
            }
        });
        return found;
    }

    private static String cmdline(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').strip();
        } catch (IOException e) {
            return "";
        }
    }
}
