package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A snapshot of what the integration suite must leave as it found it on the machine that runs it: the network state of
 * this JVM's own namespace (the real host; plugins under test run in {@link TestHost} namespaces) and the directories
 * where CNI keeps state by default. One entry per piece of state, keyed so that a difference reads as what changed:
 * <ul>
 * <li>{@code netns NAME}: each named network namespace in {@code /run/netns};</li>
 * <li>{@code link NAME}: kind, MTU, master, up or down, MAC, and for a veth the namespace of its peer;</li>
 * <li>{@code addr NAME CIDR}: each address;</li>
 * <li>{@code route4 ...}, {@code route6 ...}: each route of every table;</li>
 * <li>{@code sysctl PATH}: each readable file under {@code /proc/sys/net} (forwarding, accept_ra of every link,
 * ...);</li>
 * <li>{@code iptables LINE}, {@code ip6tables LINE}, {@code nft LINE}: the rulesets without counters, where the tool
 * exists and may be read;</li>
 * <li>{@code file PATH}: type, size and modification time of everything under {@link #CNI_DIRS}.</li>
 * </ul>
 * Reading takes a few tens of milliseconds (the sections are read in parallel) and changes nothing.
 */
public record HostState(SortedMap<String, String> entries) {

    /** Where CNI runtimes and plugins keep state when a test forgets to point them elsewhere. */
    public static final List<Path> CNI_DIRS = List.of(Path.of("/var/lib/cni"), Path.of("/run/cni"),
            Path.of("/etc/cni"));

    private static final Path PROC_SYS = Path.of("/proc/sys");

    /** Counters, not settings. */
    private static final Pattern VOLATILE_SYSCTL = Pattern.compile(".*/nf_conntrack_count$");
    private static final Pattern NFT_COUNTER = Pattern.compile("counter packets \\d+ bytes \\d+");
    private static final Pattern SAVE_COUNTER = Pattern.compile(" \\[\\d+:\\d+\\]$");

    public HostState {
        entries = Collections.unmodifiableSortedMap(new TreeMap<>(entries));
    }

    /** Reads the state now. */
    public static HostState capture() {
        return capture(CNI_DIRS);
    }

    /** As {@link #capture()}, with other directories standing for the CNI state directories (for the guard's test). */
    static HostState capture(List<Path> cniDirs) {
        List<Callable<Map<String, String>>> sections = List.of(HostState::namespaces, HostState::links,
                HostState::addresses, HostState::routes, HostState::sysctls, HostState::netfilter,
                () -> files(cniDirs));
        var all = new TreeMap<String, String>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Map<String, String>>> futures = new ArrayList<>();
            for (Callable<Map<String, String>> section : sections) {
                futures.add(pool.submit(section));
            }
            for (Future<Map<String, String>> f : futures) {
                all.putAll(f.get());
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the host's state", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the host's state", e);
        }
        return new HostState(all);
    }

    public String get(String key) {
        return entries.get(key);
    }

    /**
     * What differs from {@code before}, in key order. A sysctl counts only when it exists in both: a sysctl appears or
     * disappears with a link (reported as the link) or with a kernel module (loaded on demand by iptables in a test
     * namespace, say), which is not a setting anyone changed.
     */
    public List<Change> changesSince(HostState before) {
        var keys = new TreeSet<String>(before.entries.keySet());
        keys.addAll(entries.keySet());
        List<Change> changes = new ArrayList<>();
        for (String key : keys) {
            String was = before.entries.get(key);
            String now = entries.get(key);
            if (Objects.equals(was, now) || key.startsWith("sysctl ") && (was == null || now == null)) {
                continue;
            }
            changes.add(new Change(key, was, now));
        }
        return changes;
    }

    /**
     * One difference between two snapshots.
     *
     * @param before the value before, null if the entry is new
     * @param after the value after, null if the entry is gone
     */
    public record Change(String key, String before, String after) {
        private static final Pattern LINK_SYSCTL = Pattern.compile("sysctl net/ipv[46]/(?:conf|neigh)/([^/]+)/.*");
        private static final Pattern ROUTE_DEV = Pattern.compile(" dev (\\S+)");

        public boolean added() {
            return before == null;
        }

        public boolean removed() {
            return after == null;
        }

        /** The namespace or link this change is about (a route's device, a link's sysctl), null if none. */
        public String subject() {
            String[] words = key.split(" ");
            switch (words[0]) {
                case "netns", "link", "addr":
                    return words[1];
                case "route4", "route6":
                    Matcher dev = ROUTE_DEV.matcher(key);
                    return dev.find() ? dev.group(1) : null;
                case "sysctl":
                    Matcher link = LINK_SYSCTL.matcher(key);
                    return link.matches() && !link.group(1).equals("all") && !link.group(1).equals("default")
                            ? link.group(1) : null;
                default:
                    return null;
            }
        }

        @Override
        public String toString() {
            if (added()) {
                return "+ " + key + (after.isEmpty() ? "" : " = " + after);
            }
            if (removed()) {
                return "- " + key + (before.isEmpty() ? "" : " (was " + before + ")");
            }
            return "~ " + key + ": " + before + " -> " + after;
        }
    }

    // ---- sections ------------------------------------------------------------------------------------------------

    private static Map<String, String> namespaces() throws IOException {
        var found = new HashMap<String, String>();
        if (Files.isDirectory(TestNetns.RUN_DIR)) {
            try (Stream<Path> names = Files.list(TestNetns.RUN_DIR)) {
                names.forEach(p -> found.put("netns " + p.getFileName(), ""));
            }
        }
        return found;
    }

    private static Map<String, String> links() {
        Map<Integer, String> nsNames = new HashMap<>();
        ProcessResult ids = Processes.run("ip", "-j", "netns", "list-id");
        if (ids.succeeded() && !ids.stdout().isBlank()) {
            for (JsonNode id : Json.parse(ids.stdout())) {
                nsNames.put(id.path("nsid").asInt(), id.path("name").asText("nsid " + id.path("nsid").asInt()));
            }
        }
        var found = new HashMap<String, String>();
        for (JsonNode l : ipJson("-d", "link", "show")) {
            StringBuilder value = new StringBuilder();
            value.append("kind=").append(l.path("linkinfo").path("info_kind").asText("-"))
                    .append(" mtu=").append(l.path("mtu").asInt())
                    .append(" master=").append(l.path("master").asText("-"))
                    .append(" up=").append(l.path("flags").toString().contains("\"UP\""))
                    .append(" mac=").append(l.path("address").asText("-"));
            if (l.has("link_netnsid")) {
                int id = l.path("link_netnsid").asInt();
                value.append(" peer-netns=").append(nsNames.getOrDefault(id, "nsid " + id));
            }
            found.put("link " + l.path("ifname").asText(), value.toString());
        }
        return found;
    }

    private static Map<String, String> addresses() {
        var found = new HashMap<String, String>();
        for (JsonNode l : ipJson("addr", "show")) {
            for (JsonNode a : l.path("addr_info")) {
                found.put("addr " + l.path("ifname").asText() + " " + a.path("local").asText() + "/"
                        + a.path("prefixlen").asInt(), "");
            }
        }
        return found;
    }

    private static Map<String, String> routes() {
        var found = new HashMap<String, String>();
        for (String family : List.of("4", "6")) {
            for (JsonNode r : ipJson("-" + family, "route", "show", "table", "all")) {
                StringBuilder key = new StringBuilder("route" + family);
                for (String field : List.of("type", "table", "dst", "gateway", "dev", "protocol", "scope",
                        "metric", "prefsrc")) {
                    if (r.has(field)) {
                        key.append(' ').append(field).append(' ').append(r.path(field).asText());
                    }
                }
                found.put(key.toString(), "");
            }
        }
        return found;
    }

    private static Map<String, String> sysctls() throws IOException {
        var found = new HashMap<String, String>();
        try (Stream<Path> files = Files.walk(PROC_SYS.resolve("net"))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String key = PROC_SYS.relativize(file).toString();
                if (VOLATILE_SYSCTL.matcher(key).matches() || !Files.isRegularFile(file)) {
                    continue;
                }
                try {
                    found.put("sysctl " + key, readSysctl(file));
                } catch (NoSuchFileException e) {
                    // A link went away while the tree was walked.
                } catch (IOException e) {
                    // Write-only (route/flush) or unset (stable_secret): nothing to compare.
                }
            }
        } catch (UncheckedIOException e) {
            // Files.walk meeting a directory that vanished with its link: read what was there.
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e;
            }
        }
        return found;
    }

    /** One read of a page, as sysctl handlers want it (a second read at an offset would see end-of-file). */
    private static String readSysctl(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[4096];
            int n = Math.max(0, in.read(buf));
            return new String(buf, 0, n, StandardCharsets.UTF_8).strip().replaceAll("\\s+", " ");
        }
    }

    private static Map<String, String> netfilter() {
        var found = new HashMap<String, String>();
        ruleset(found, "iptables", List.of("iptables-save"));
        ruleset(found, "ip6tables", List.of("ip6tables-save"));
        ruleset(found, "nft", List.of("nft", "list", "ruleset"));
        return found;
    }

    private static void ruleset(Map<String, String> into, String name, List<String> command) {
        if (!Prerequisites.isRoot() || !Prerequisites.onPath(command.getFirst())) {
            return;
        }
        ProcessResult result = Processes.run(command.toArray(String[]::new));
        if (!result.succeeded()) {
            into.put(name, "unreadable: " + result.stderr().strip());
            return;
        }
        Map<String, Integer> seen = new HashMap<>();
        for (String line : result.stdout().lines().toList()) {
            String rule = SAVE_COUNTER.matcher(NFT_COUNTER.matcher(line.strip()).replaceAll("counter")).replaceAll("");
            if (rule.isEmpty() || rule.startsWith("#")) {
                continue;
            }
            // The same rule may stand twice: count occurrences instead of losing one.
            int n = seen.merge(rule, 1, Integer::sum);
            into.put(name + " " + rule + (n > 1 ? " #" + n : ""), "");
        }
    }

    private static Map<String, String> files(List<Path> dirs) throws IOException {
        var found = new HashMap<String, String>();
        for (Path dir : dirs) {
            if (!Files.exists(dir)) {
                continue;
            }
            try (Stream<Path> tree = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) tree::iterator) {
                    try {
                        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                        found.put("file " + p, (a.isDirectory() ? "dir" : "file size=" + a.size())
                                + " mtime=" + a.lastModifiedTime());
                    } catch (NoSuchFileException e) {
                        // Removed while walking: not there.
                    }
                }
            } catch (AccessDeniedException | UncheckedIOException e) {
                // Not root (/run/cni is root's alone), or a directory vanished under the walk: say so, consistently.
                found.put("file " + dir, "unreadable");
            }
        }
        return found;
    }

    private static JsonNode ipJson(String... args) {
        var command = new ArrayList<String>(List.of("ip", "-j"));
        command.addAll(List.of(args));
        String out = Processes.check(command.toArray(String[]::new)).stdout();
        return out.isBlank() ? Json.parse("[]") : Json.parse(out);
    }
}
