package io.jcni.it.containerd;

import io.jcni.it.support.Containerd;
import io.jcni.it.support.ProcessResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code ctr run --rm --cni} of containerd's command-line client in a {@link Node}: ctr itself (go-cni in its
 * own process) sets the container's network up on the conflist in the node's /etc/cni/net.d after the task is
 * created, and removes it after the task has exited, i.e. when the task's network namespace is gone already. The
 * container prints its eth0 address, then runs busybox httpd in the foreground.
 */
final class CtrRun {
    private static final Pattern INET = Pattern.compile("inet (\\d+\\.\\d+\\.\\d+\\.\\d+)/(\\d+)");

    private final Node node;
    private final String name;
    private final Path log;
    private final Process process;

    private CtrRun(Node node, String name, Path log, Process process) {
        this.node = node;
        this.name = name;
        this.log = log;
        this.process = process;
    }

    /** Starts container {@code name} (in ctr's namespace "default"); its cgroup under the harness's parent. */
    static CtrRun start(Node node, String name, Path log) {
        Process process = node.containerd.ctrInBackground(log, node.env, "-n", "default", "run", "--rm", "--cni",
                "--cgroup", node.containerd.cgroupParent() + "/" + name, Containerd.IMAGE, name, "/bin/sh", "-c",
                "ip -4 -o addr show dev eth0; exec httpd -f -p 80 -h /www");
        return new CtrRun(node, name, log, process);
    }

    /** The address the container printed (CIDR notation), waiting for it at most a minute. */
    String address() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Matcher m = INET.matcher(output());
            if (m.find()) {
                return m.group(1) + "/" + m.group(2);
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("ctr run printed no address:\n" + output() + "\ncontainerd:\n"
                        + node.containerd.log());
            }
            Node.sleep(100);
        }
    }

    /** The task's pid, from {@code ctr task ls}. */
    long pid() {
        ProcessResult tasks = node.containerd.ctr("-n", "default", "task", "ls").requireSuccess();
        for (String line : tasks.stdout().lines().toList()) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals(name) && f[2].equals("RUNNING")) {
                return Long.parseLong(f[1]);
            }
        }
        throw new AssertionError("no running task " + name + ":\n" + tasks.stdout());
    }

    /** Kills the task (SIGKILL); ctr then removes the network and the container, and exits: its exit status. */
    int kill() throws InterruptedException {
        node.containerd.ctr("-n", "default", "task", "kill", "-s", "SIGKILL", name).requireSuccess();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("ctr run did not end after its task was killed:\n" + output());
        }
        return process.exitValue();
    }

    /** What ctr run printed (the container's output, and ctr's own messages). */
    String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
