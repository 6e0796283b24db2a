package io.jcni.plugins.internal.ipam.hostlocal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs Debian's Go host-local (containernetworking-plugins 1.1.1) directly, as a runtime would exec it. */
final class GoHostLocal {

    static final Path BINARY = Path.of("/usr/lib/cni/host-local");

    private static final Pattern ADDRESS = Pattern.compile("\"address\":\\s*\"([^\"/]+)/\\d+\"");
    private static final Pattern MSG = Pattern.compile("\"msg\":\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final Path dataDir;
    private final String rangesJson;

    /** @param rangesJson the {@code ranges} value, e.g. {@code [[{"subnet":"10.1.0.0/24"}]]} */
    GoHostLocal(Path dataDir, String rangesJson) {
        this.dataDir = dataDir;
        this.rangesJson = rangesJson;
    }

    static boolean available() {
        return Files.isExecutable(BINARY);
    }

    /** What one exec answered: exit status, the result's addresses, or the error's msg. */
    record Answer(int exit, List<String> addresses, String error, String stdout) {

        boolean succeeded() {
            return exit == 0;
        }
    }

    Answer add(String id, String ifname, String... requestedIps) throws IOException, InterruptedException {
        return run("ADD", id, ifname, requestedIps);
    }

    Answer del(String id, String ifname) throws IOException, InterruptedException {
        return run("DEL", id, ifname);
    }

    Answer check(String id, String ifname) throws IOException, InterruptedException {
        return run("CHECK", id, ifname);
    }

    private Answer run(String command, String id, String ifname, String... requestedIps)
            throws IOException, InterruptedException {
        String config = "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + dataDir + "\",\"ranges\":" + rangesJson + "}}";
        ProcessBuilder pb = new ProcessBuilder(BINARY.toString());
        Map<String, String> env = pb.environment();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", id);
        env.put("CNI_IFNAME", ifname);
        env.put("CNI_NETNS", "/var/run/netns/jcni-hl-unused");
        env.put("CNI_PATH", "/usr/lib/cni");
        if (requestedIps.length > 0) {
            env.put("CNI_ARGS", "IgnoreUnknown=1;IP=" + requestedIps[0]);
        }
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write(config.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("Go host-local did not finish");
        }
        List<String> addresses = new ArrayList<>();
        Matcher m = ADDRESS.matcher(out);
        while (m.find()) {
            addresses.add(m.group(1));
        }
        Matcher e = MSG.matcher(out);
        return new Answer(p.exitValue(), addresses, e.find() ? e.group(1) : null, out);
    }
}
