package io.jcni.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A scriptable plugin for unit tests: a {@code /bin/sh} program in a test's CNI_PATH directory that logs every call
 * (command, CNI_* variables, stdin) and answers each command as the test set it up: stdout text, stderr text, exit
 * status. Without setup it succeeds silently, and answers VERSION supporting every version jcni knows.
 */
public final class FakePlugin {
    /** One logged call. */
    public record Call(String command, String containerId, String netns, String ifName, String args, String path,
            String stdin) {
    }

    private final Path dir;
    private final String name;

    private FakePlugin(Path dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    public static FakePlugin create(Path dir, String name) throws IOException {
        String d = dir.toString().replace("'", "'\\''");
        ScriptPlugins.write(dir, name, """
                d='%s'; n='%s'
                in=$(cat)
                printf '%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%s\\t%%s\\n' "$CNI_COMMAND" "$CNI_CONTAINERID" "$CNI_NETNS" \
                  "$CNI_IFNAME" "$CNI_ARGS" "$CNI_PATH" "$in" >> "$d/$n.log"
                if [ -f "$d/$n.gate.$CNI_COMMAND" ]; then
                  while [ ! -e "$d/$n.open" ]; do sleep 0.01; done
                fi
                [ -f "$d/$n.err.$CNI_COMMAND" ] && cat "$d/$n.err.$CNI_COMMAND" >&2
                if [ -f "$d/$n.out.$CNI_COMMAND" ]; then
                  cat "$d/$n.out.$CNI_COMMAND"
                elif [ "$CNI_COMMAND" = VERSION ]; then
                  printf '{"cniVersion":"1.1.0","supportedVersions":["0.1.0","0.2.0","0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]}'
                fi
                [ -f "$d/$n.exit.$CNI_COMMAND" ] && exit "$(cat "$d/$n.exit.$CNI_COMMAND")"
                exit 0""".formatted(d, name));
        return new FakePlugin(dir, name);
    }

    public String type() {
        return name;
    }

    /** Prints {@code stdout} for {@code command} and exits 0. */
    public FakePlugin answer(String command, String stdout) throws IOException {
        Files.writeString(dir.resolve(name + ".out." + command), stdout);
        Files.deleteIfExists(dir.resolve(name + ".exit." + command));
        return this;
    }

    /** Prints {@code stdout} for {@code command} and exits with {@code status}. */
    public FakePlugin fail(String command, String stdout, int status) throws IOException {
        Files.writeString(dir.resolve(name + ".out." + command), stdout);
        Files.writeString(dir.resolve(name + ".exit." + command), Integer.toString(status));
        return this;
    }

    /** Writes {@code text} to stderr for {@code command}. */
    public FakePlugin stderr(String command, String text) throws IOException {
        Files.writeString(dir.resolve(name + ".err." + command), text);
        return this;
    }

    /** Makes {@code command} wait, after logging its call, until {@link #openGate()}. */
    public FakePlugin gate(String command) throws IOException {
        Files.writeString(dir.resolve(name + ".gate." + command), "");
        return this;
    }

    public void openGate() throws IOException {
        Files.writeString(dir.resolve(name + ".open"), "");
    }

    /** The calls so far, in order. */
    public List<Call> calls() {
        List<String> lines;
        try {
            lines = Files.readAllLines(dir.resolve(name + ".log"));
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Call> calls = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            calls.add(new Call(f[0], f[1], f[2], f[3], f[4], f[5], f[6]));
        }
        return calls;
    }

    /** The commands of the calls so far. */
    public List<String> commands() {
        List<String> commands = new ArrayList<>();
        for (Call call : calls()) {
            commands.add(call.command());
        }
        return commands;
    }
}
