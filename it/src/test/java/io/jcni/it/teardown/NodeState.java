package io.jcni.it.teardown;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Json;
import io.jcni.it.support.TestHost;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What a node holds that a CNI attachment can leave behind, read from a {@link TestHost} and the directories where
 * the plugins and the runtime keep files, as sorted lines that compare as sets: links (name, kind, master), addresses,
 * routes of every table, the whole nftables ruleset (iptables-nft's tables included, so Go's iptables rules are read
 * too; packet counters left out), qdiscs, and the files under the state directories (paths only: host-local's
 * {@code last_reserved_ip} is a cursor whose content moves on every ADD).
 *
 * @param lines one line per object, prefixed with its kind ({@code link}, {@code addr}, {@code route}, {@code nft},
 *     {@code qdisc}, {@code file})
 */
public record NodeState(TreeSet<String> lines) {

    /**
     * The node now, once its IPv6 addresses have finished duplicate address detection (the kernel adds their local
     * routes only then; a snapshot taken earlier would see them appear later, as if made by someone else).
     */
    public static NodeState read(TestHost host, Path... stateDirs) {
        host.awaitNoTentativeAddresses(Duration.ofSeconds(6));
        TreeSet<String> lines = new TreeSet<>();
        for (IpLink link : host.kernel().links()) {
            lines.add("link " + link.name() + " kind=" + link.kind() + " master=" + link.master());
        }
        for (IpAddress a : host.kernel().addresses()) {
            lines.add("addr " + a.ifname() + " " + a.cidr());
        }
        for (String family : List.of("-4", "-6")) {
            for (String route : host.exec("ip", family, "-o", "route", "show", "table", "all").requireSuccess()
                    .stdout().lines().toList()) {
                lines.add("route " + route.replace(" linkdown", "").replaceAll(" expires \\d+sec", "").strip());
            }
        }
        nftables(host, lines);
        JsonNode qdiscs = Json.parse(host.exec("tc", "-j", "qdisc", "show").requireSuccess().stdout());
        for (JsonNode q : qdiscs) {
            lines.add("qdisc dev " + q.path("dev").asText() + " " + q.path("kind").asText() + " handle "
                    + q.path("handle").asText() + " parent " + q.path("parent").asText("root"));
        }
        for (Path dir : stateDirs) {
            files(dir, lines);
        }
        return new NodeState(lines);
    }

    /** Each rule, set element and chain line of {@code nft list ruleset}, prefixed with its table and chain. */
    private static void nftables(TestHost host, TreeSet<String> lines) {
        String table = "";
        String chain = "";
        for (String raw : host.exec("nft", "list", "ruleset").requireSuccess().stdout().lines().toList()) {
            String line = raw.strip().replaceAll("counter packets \\d+ bytes \\d+ ?", "").strip();
            if (line.isEmpty() || line.startsWith("#") || line.equals("}")) {
                continue;
            }
            if (line.startsWith("table ")) {
                table = line.substring(6, line.length() - 2);
                chain = "";
                lines.add("nft table " + table);
            } else if (line.startsWith("chain ")) {
                chain = line.substring(6, line.length() - 2);
                lines.add("nft " + table + " chain " + chain);
            } else {
                lines.add("nft " + table + " " + chain + ": " + line);
            }
        }
    }

    private static void files(Path dir, TreeSet<String> lines) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                if (!isLockBucket(file)) {
                    lines.add("file " + file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One of jcni's runtime's lock files: {@code <cacheDir>/locks/attachment-NNN.lock}, 1024 buckets that attachments
     * hash into, and {@code network-NAME.lock}, a network's collection gate; made on first use and never deleted by
     * design ({@code AttachmentLocks}, {@code CollectionGates}), so no attachment's.
     */
    static boolean isLockBucket(Path file) {
        return file.getParent() != null && file.getParent().getFileName().toString().equals("locks")
                && file.getFileName().toString().matches("attachment-[0-9a-f]{3}\\.lock|network-.+\\.lock");
    }

    /** What {@code later} holds that this state did not: what was made since, and left. */
    public List<String> addedIn(NodeState later) {
        List<String> added = new ArrayList<>(later.lines);
        added.removeAll(lines);
        return added;
    }

    /** What this state held that {@code later} does not. */
    public List<String> removedIn(NodeState later) {
        List<String> removed = new ArrayList<>(lines);
        removed.removeAll(later.lines);
        return removed;
    }
}
