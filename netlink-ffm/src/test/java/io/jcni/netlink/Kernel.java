package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** Helpers for tests that touch the kernel: root check, unique names, running {@code ip}/{@code bridge} and reading JSON. */
public final class Kernel {
    private Kernel() {}

    private static final ObjectMapper JSON = new ObjectMapper();

    public static boolean isRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[2].equals("0"));
        } catch (IOException e) {
            return false;
        }
    }

    public static void assumeRoot() {
        assumeTrue(isRoot(), "needs root (creates network namespaces)");
    }

    /** {@code jcni-nl-<what>-<random>}: unique per call, for namespaces and host-visible names. */
    public static String uniqueName(String what) {
        byte[] r = new byte[3];
        ThreadLocalRandom.current().nextBytes(r);
        return "jcni-nl-" + what + "-" + HexFormat.of().formatHex(r);
    }

    public record Result(int exit, String out, String err) {
    }

    public static Result run(String... command) {
        try {
            Process p = new ProcessBuilder(command).start();
            p.getOutputStream().close();
            byte[] out;
            byte[] err;
            // Closed explicitly, not left to the cleaner: tests count this process's open descriptors.
            try (var stdout = p.getInputStream(); var stderr = p.getErrorStream()) {
                out = stdout.readAllBytes();
                err = stderr.readAllBytes();
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + List.of(command));
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                    new String(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs a command that must succeed; returns its stdout. */
    public static String sh(String... command) {
        Result r = run(command);
        assertThat(r.exit()).as("%s failed: %s", List.of(command), r.err()).isZero();
        return r.out();
    }

    /** Runs a command printing JSON and parses it. */
    static JsonNode json(String... command) {
        try {
            String out = sh(command);
            return JSON.readTree(out.isBlank() ? "[]" : out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The inode of the calling OS thread's network namespace. */
    static long threadNetnsInode() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString();
            return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
