package io.jcni.it.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Maven run by a test: the checkout's wrapper ({@code ./mvnw}, pinned to the build's Maven, which finds JDK 25 by
 * itself), with the local repository of the build that runs the tests (so plugins and dependencies it resolved are
 * there, and nothing lands in another worktree's repository) and offline when that build is ({@code -o}). The it
 * module's surefire configuration passes both ({@code jcni.it.localRepository}, {@code jcni.it.mavenOffline}).
 */
public final class Maven {
    private Maven() {
    }

    /** The checkout the tests run from (the directory of {@code dist/}). */
    public static Path checkout() {
        return Locations.dist().getParent();
    }

    /** The local repository of the build running the tests. */
    public static Path localRepository() {
        String repo = System.getProperty("jcni.it.localRepository", "");
        Prerequisites.require(!repo.isEmpty() && !repo.startsWith("${"),
                () -> "the build's local repository (system property jcni.it.localRepository, set by it/pom.xml)");
        return Path.of(repo);
    }

    /** Whether the build running the tests is offline (then nested builds are too). */
    public static boolean offline() {
        return System.getProperty("jcni.it.mavenOffline", "offline=false").equals("offline=true");
    }

    /**
     * Runs the wrapper in {@code dir} ({@code -f dir/pom.xml}) with {@code arguments}, batch mode, the build's local
     * repository (or {@code repository} when not null, with the build's as its read-only tail: Maven 3.9's chained
     * local repository) and offline if the build is.
     */
    public static ProcessResult run(Path dir, Path repository, List<String> arguments, Duration timeout) {
        return run(dir, repository, arguments, Map.of(), timeout);
    }

    /** As {@link #run(Path, Path, List, Duration)}, with {@code env} on top of this JVM's environment. */
    public static ProcessResult run(Path dir, Path repository, List<String> arguments, Map<String, String> env,
            Duration timeout) {
        // The outer build's MAVEN_OPTS/MAVEN_ARGS would apply to the nested one as well: none.
        Map<String, String> environment = new HashMap<>(Map.of("MAVEN_OPTS", "", "MAVEN_ARGS", ""));
        environment.putAll(env);
        return Processes.run(command(dir, repository, arguments), environment, null, timeout);
    }

    /** The command line {@link #run} runs. */
    public static List<String> command(Path dir, Path repository, List<String> arguments) {
        Path mvnw = checkout().resolve("mvnw");
        Prerequisites.require(Files.isExecutable(mvnw), () -> "the Maven wrapper " + mvnw);
        List<String> command = new ArrayList<>(List.of(mvnw.toString(), "-B", "-f", dir.resolve("pom.xml")
                .toString()));
        if (repository == null) {
            command.add("-Dmaven.repo.local=" + localRepository());
        } else {
            command.add("-Dmaven.repo.local=" + repository);
            command.add("-Dmaven.repo.local.tail=" + localRepository());
        }
        if (offline()) {
            command.add("-o");
        }
        command.addAll(arguments);
        return command;
    }
}
