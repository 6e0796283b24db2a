package io.jcni.it.runtime;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.it.support.TestHost;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How tests run the {@code jcni} CLI as a separate process: either {@code dist/bin/jcni} (the launcher of the jlink
 * image, skipped until the build produced it) or the runtime module's main class on this JVM's module path
 * ({@code java -p ... -m io.jcni.runtime/io.jcni.runtime.internal.cli.JcniCli}).
 */
enum JcniCommand {
    MODULE, DIST;

    static final String MAIN = "io.jcni.runtime/io.jcni.runtime.internal.cli.JcniCli";

    /** The command line prefix; skips the test if this launcher is not available. */
    List<String> prefix() {
        if (this == DIST) {
            Prerequisites.assumeJcniCli();
            return List.of(Locations.distJcni().toString());
        }
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath == null || modulePath.isEmpty()) {
            throw new IllegalStateException("tests do not run on the module path: jdk.module.path is not set");
        }
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-p", modulePath, "-m",
                MAIN);
    }

    ProcessResult run(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(prefix());
        command.addAll(List.of(args));
        return Processes.run(command, env, null, Processes.DEFAULT_TIMEOUT);
    }

    /** As {@link #run(Map, String...)}, with the command and the plugins it execs running in {@code host}. */
    ProcessResult run(TestHost host, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(prefix());
        command.addAll(List.of(args));
        return host.run(command, env, null, Processes.DEFAULT_TIMEOUT);
    }

    /** Starts the command without waiting; stdout and stderr go to files in {@code dir}. */
    Process start(Map<String, String> env, Path dir, String name, String... args) {
        List<String> command = new ArrayList<>(prefix());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile());
        builder.environment().putAll(env);
        try {
            Files.createDirectories(dir);
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }
}
