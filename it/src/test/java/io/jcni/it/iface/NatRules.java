package io.jcni.it.iface;

import io.jcni.it.support.Processes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The iptables nat table around a test that runs Go's portmap (which programs iptables): a snapshot at the start, and
 * on close the removal of every chain and rule that was not there before, IPv4 and IPv6. portmap's DEL removes a
 * container's own chains but keeps its shared top-level ones ({@code CNI-HOSTPORT-*}) and the jumps to them; this puts
 * the table back as the test found it.
 */
final class NatRules implements AutoCloseable {
    private static final List<String> TOOLS = List.of("iptables", "ip6tables");
    private final List<Set<String>> before = new ArrayList<>();

    NatRules() {
        for (String tool : TOOLS) {
            before.add(new LinkedHashSet<>(rules(tool)));
        }
    }

    /** The IPv4 nat rules now, as {@code iptables -t nat -S} prints them. */
    static List<String> ipv4() {
        return rules("iptables");
    }

    private static List<String> rules(String tool) {
        var result = Processes.run(tool, "-w", "-t", "nat", "-S");
        return result.succeeded() ? result.stdout().lines().filter(l -> !l.isBlank()).toList() : List.of();
    }

    /** {@code -S} output split into arguments, double-quoted comments kept whole. */
    static List<String> words(String rule) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        for (char c : rule.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ' ' && !quoted) {
                if (!word.isEmpty()) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        if (!word.isEmpty()) {
            words.add(word.toString());
        }
        return words;
    }

    @Override
    public void close() {
        for (int i = 0; i < TOOLS.size(); i++) {
            String tool = TOOLS.get(i);
            Set<String> old = before.get(i);
            List<String> added = rules(tool).stream().filter(r -> !old.contains(r)).toList();
            List<String> chains = added.stream().filter(r -> r.startsWith("-N ")).map(r -> r.substring(3)).toList();
            for (String chain : chains) {
                Processes.run(tool, "-w", "-t", "nat", "-F", chain);
            }
            for (String rule : added) {
                if (rule.startsWith("-A ")) {
                    List<String> command = new ArrayList<>(List.of(tool, "-w", "-t", "nat", "-D"));
                    command.addAll(words(rule.substring(3)));
                    Processes.run(command.toArray(String[]::new));
                }
            }
            for (String chain : chains) {
                Processes.run(tool, "-w", "-t", "nat", "-X", chain);
            }
        }
    }
}
