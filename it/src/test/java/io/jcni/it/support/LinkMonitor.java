package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Watches this JVM's own network namespace (the real host) for links that appear while a test class runs, with
 * {@code ip -o monitor link}: a bridge or veth that a test makes on the host and removes again leaves nothing for a
 * before/after comparison to see. Only links this JVM is responsible for are kept: a name {@link Names} handed out
 * here, or a veth whose peer is in a namespace named here (what a plugin makes when it runs in the real host for one
 * of our containers). Links of other processes on the machine are none of this suite's business.
 *
 * <p>Not thread-safe; start, then {@link #close()} and read {@link #seen()}, from one thread.
 */
final class LinkMonitor implements AutoCloseable {
    private static final Pattern NEW_LINK = Pattern.compile("^\\d+: ([^:@ ]+)(?:@\\S+)?: .*");
    private static final Pattern PEER_NSID = Pattern.compile("link-netnsid (\\d+)");

    private final Process process;
    private final Thread reader;
    private final Set<String> existing;
    private final List<String> seen = new ArrayList<>();

    private LinkMonitor(Process process, Set<String> existing) {
        this.process = process;
        this.existing = new HashSet<>(existing);
        this.reader = Thread.ofPlatform().daemon().name("jcni-link-monitor").start(this::read);
    }

    /**
     * Starts watching; returns once {@code ip} has subscribed to link events, so that nothing done after this returns
     * is missed. {@code existing} are the links present now (their changes are not reported).
     */
    static LinkMonitor start(Set<String> existing) {
        Process process;
        try {
            process = new ProcessBuilder("ip", "-o", "monitor", "link").redirectErrorStream(true).start();
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start ip monitor", e);
        }
        awaitSubscription(process);
        return new LinkMonitor(process, existing);
    }

    /** Waits until the process's rtnetlink socket is bound to a multicast group (/proc/net/netlink shows it). */
    private static void awaitSubscription(Process process) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline && process.isAlive()) {
            String[] socket = socket(process);
            if (socket != null && !socket[3].matches("0+")) {
                return;
            }
            pause();
        }
        process.destroyForcibly();
        throw new IllegalStateException("ip monitor link did not subscribe to link events within 5 s");
    }

    /**
     * The process's rtnetlink socket as a row of /proc/net/netlink ({@code sk Eth Pid Groups Rmem ...}), or null.
     */
    private static String[] socket(Process process) {
        String pid = Long.toString(process.pid());
        try {
            for (String line : Files.readAllLines(Path.of("/proc/net/netlink"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 4 && f[1].equals("0") && f[2].equals(pid)) {
                    return f;
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void read() {
        try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                Matcher m = NEW_LINK.matcher(line);
                if (line.startsWith("Deleted") || !m.matches() || !existing.add(m.group(1))) {
                    continue;
                }
                String name = m.group(1);
                String ours = responsibility(name, line);
                if (ours != null) {
                    synchronized (seen) {
                        seen.add(ours);
                    }
                }
            }
        } catch (IOException e) {
            // The process was ended by close().
        }
    }

    /** Why {@code name} is this JVM's doing, or null if it is not. */
    private static String responsibility(String name, String line) {
        if (Names.madeHere(name)) {
            return name;
        }
        Matcher nsid = PEER_NSID.matcher(line);
        if (nsid.find()) {
            // Resolved at once: the namespace (a test's container) may be gone by the end of the class.
            ProcessResult ids = Processes.run("ip", "-j", "netns", "list-id");
            if (ids.succeeded() && !ids.stdout().isBlank()) {
                for (JsonNode id : Json.parse(ids.stdout())) {
                    String ns = id.path("name").asText();
                    if (id.path("nsid").asText().equals(nsid.group(1)) && Names.madeHere(ns)) {
                        return name + " (its peer is in " + ns + ")";
                    }
                }
            }
        }
        return null;
    }

    /** Links of this JVM's making that appeared on the host while watching (valid after {@link #close()}). */
    List<String> seen() {
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    /**
     * Stops watching, after {@code ip} has taken every event already queued on its socket (Rmem 0 in
     * /proc/net/netlink) and had a moment to print the last one.
     */
    @Override
    public void close() {
        long deadline = System.nanoTime() + 1_000_000_000L;
        for (String[] s = socket(process); s != null && !s[4].equals("0") && System.nanoTime() < deadline;
                s = socket(process)) {
            pause();
        }
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroy();
        try {
            process.waitFor();
            reader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
