package io.jcni.it.runtime;

import io.jcni.it.support.Processes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The iptables nat state that Go's portmap plugin creates, for tests: snapshot before, read during, and on close
 * remove what portmap left that was not there before. portmap's DEL removes a container's own chain and rules but
 * keeps its shared top-level chains ({@code CNI-HOSTPORT-*}) and the jumps to them, meant for the next container;
 * a test that created them takes them away again. IPv4 and IPv6 both, because portmap's teardown touches both.
 */
final class PortmapRules implements AutoCloseable {
    private static final List<String> TOOLS = List.of("iptables", "ip6tables");

    private final List<Set<String>> before = new ArrayList<>();

    private PortmapRules() {
        for (String tool : TOOLS) {
            before.add(new LinkedHashSet<>(rules(tool)));
        }
    }

    static PortmapRules snapshot() {
        return new PortmapRules();
    }

    /** The nat table's rules and chains now, IPv4 and IPv6, as {@code -S} prints them. */
    List<String> now() {
        List<String> all = new ArrayList<>();
        for (String tool : TOOLS) {
            all.addAll(rules(tool));
        }
        return all;
    }

    private static List<String> rules(String tool) {
        var result = Processes.run(tool, "-w", "-t", "nat", "-S");
        if (!result.succeeded()) {
            return List.of();
        }
        return result.stdout().lines().filter(l -> !l.isBlank()).toList();
    }

    /**
     * Removes what is new since the snapshot: flushes the new chains (which drops the rules inside them, jumps to
     * other new chains included), deletes the new rules in chains that existed before, then deletes the new chains.
     */
    @Override
    public void close() {
        for (int i = 0; i < TOOLS.size(); i++) {
            String tool = TOOLS.get(i);
            Set<String> old = before.get(i);
            List<String> added = rules(tool).stream().filter(r -> !old.contains(r)).toList();
            List<String> newChains = added.stream().filter(r -> r.startsWith("-N ")).map(r -> r.substring(3))
                    .toList();
            for (String chain : newChains) {
                iptables(tool, "-F", chain);
            }
            for (String rule : added) {
                List<String> words = words(rule);
                if (words.getFirst().equals("-A") && !newChains.contains(words.get(1))) {
                    List<String> delete = new ArrayList<>(List.of("-D"));
                    delete.addAll(words.subList(1, words.size()));
                    iptables(tool, delete.toArray(String[]::new));
                }
            }
            for (String chain : newChains) {
                iptables(tool, "-X", chain);
            }
            List<String> left = rules(tool).stream().filter(r -> !old.contains(r)).toList();
            if (!left.isEmpty()) {
                throw new AssertionError(tool + " nat rules left behind: " + left);
            }
        }
    }

    private static void iptables(String tool, String... args) {
        List<String> command = new ArrayList<>(List.of(tool, "-w", "-t", "nat"));
        command.addAll(List.of(args));
        Processes.run(command, Map.of(), null, Processes.DEFAULT_TIMEOUT);
    }

    /** Splits a rule as {@code iptables -S} quotes it: double quotes around words with spaces, {@code \"} inside. */
    static List<String> words(String rule) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        boolean inWord = false;
        for (int i = 0; i < rule.length(); i++) {
            char c = rule.charAt(i);
            if (quoted && c == '\\' && i + 1 < rule.length()) {
                word.append(rule.charAt(++i));
            } else if (c == '"') {
                quoted = !quoted;
                inWord = true;
            } else if (c == ' ' && !quoted) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
