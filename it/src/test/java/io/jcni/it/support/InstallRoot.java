package io.jcni.it.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The machine as a package installation sees it, without touching the machine: a shell in a mount namespace of its own
 * ({@code unshare --mount --propagation private}: nothing mounted there reaches the machine) where {@code /usr},
 * {@code /var}, {@code /opt} and {@code /etc} are overlays whose lower layer is the machine's directory and whose upper
 * layer is a tmpfs of the namespace. So {@code apt-get install ./x.deb} there reads the machine's dpkg database, writes
 * its copy, installs files into its copies of the directories, and all of it goes with the namespace when the shell
 * ends; the machine's files and dpkg database stay as they were. Paths in {@code hidden} get an empty tmpfs on top
 * (the build's {@code dist/}, so that an installed program that fell back to the build tree would fail).
 *
 * <p>{@link #leftovers} lists what the session's commands left in the overlaid directories: every file, link or
 * directory of an upper layer that the machine does not have, i.e. what an uninstall did not remove.
 */
public final class InstallRoot implements AutoCloseable {
    /** The directories that are overlays. */
    public static final List<String> OVERLAID = List.of("/usr", "/var", "/opt", "/etc");

    private final ShellSession shell;
    private final Path layers;

    private InstallRoot(ShellSession shell, Path layers) {
        this.shell = shell;
        this.layers = layers;
    }

    /**
     * Starts the namespace; {@code dir} is an empty directory of the test (on which the namespace mounts the tmpfs of
     * the upper layers: outside the namespace it stays empty).
     */
    public static InstallRoot start(Path dir, List<Path> hidden) {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("unshare");
        Prerequisites.require(Files.isDirectory(dir), () -> "a directory for the overlays' upper layers: " + dir);
        StringBuilder setup = new StringBuilder("mount -t tmpfs -o mode=0755 tmpfs "
                + ShellSession.quote(dir.toString()) + " || exit 90\n");
        for (String overlaid : OVERLAID) {
            String name = overlaid.substring(1);
            String upper = dir.resolve(name + ".up").toString();
            String work = dir.resolve(name + ".work").toString();
            setup.append("mkdir -p ").append(ShellSession.quote(upper)).append(' ').append(ShellSession.quote(work))
                    .append(" && mount -t overlay overlay -o ")
                    .append(ShellSession.quote("lowerdir=" + overlaid + ",upperdir=" + upper + ",workdir=" + work))
                    .append(' ').append(overlaid).append(" || exit 91\n");
        }
        for (Path path : hidden) {
            setup.append("mount -t tmpfs -o mode=0755 tmpfs ").append(ShellSession.quote(path.toString()))
                    .append(" || exit 92\n");
        }
        setup.append("export DEBIAN_FRONTEND=noninteractive\ncd /");
        return new InstallRoot(ShellSession.start(List.of("unshare", "--mount", "--propagation", "private"),
                setup.toString()), dir);
    }

    /** Runs one command line in the namespace. */
    public ShellSession.Result run(String line) {
        return shell.run(line);
    }

    /** Runs {@code words} (each one word) in the namespace. */
    public ShellSession.Result run(List<String> words) {
        return shell.run(ShellSession.quote(words));
    }

    /** The namespace's mount namespace file (for {@code nsenter --mount}). */
    public Path mountNamespace() {
        return shell.mountNamespace();
    }

    /** {@code path} as the namespace sees it, readable from the test. */
    public Path resolve(String path) {
        return shell.root().resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    /**
     * What the namespace's commands added to {@code overlaid} (one of {@link #OVERLAID}) that the machine does not
     * have: paths as the namespace sees them, sorted. Directories the machine has (copied up when something was
     * written in them) are not listed; whiteouts (what was deleted from the machine's layer) are listed with
     * {@code (deleted)}.
     */
    public List<String> leftovers(String overlaid) {
        Path upper = layers.resolve(overlaid.substring(1) + ".up");
        ShellSession.Result found = run("(cd " + ShellSession.quote(upper.toString())
                + " && find . -mindepth 1 \\( -type c -printf 'W %P\\n' \\) -o \\( -type d -printf 'D %P\\n' \\)"
                + " -o -printf 'F %P\\n') | LC_ALL=C sort");
        found.requireSuccess();
        List<String> left = new ArrayList<>();
        for (String line : found.output().lines().toList()) {
            String path = overlaid + "/" + line.substring(2);
            switch (line.charAt(0)) {
                case 'W' -> left.add(path + " (deleted)");
                case 'D' -> {
                    if (!Files.isDirectory(Path.of(path))) {
                        left.add(path);
                    }
                }
                default -> left.add(path);
            }
        }
        return left;
    }

    /** Ends the namespace: its overlays and everything installed in them are gone. */
    @Override
    public void close() {
        shell.close();
    }
}
