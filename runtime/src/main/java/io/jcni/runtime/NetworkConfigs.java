package io.jcni.runtime;

import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The network configurations in a directory (such as {@code /etc/cni/net.d}), loaded as libcni's
 * {@code LoadConfList} finds them: {@code .conflist} files first, then {@code .conf} and {@code .json} files (each a
 * single plugin configuration, wrapped as a list of one), each group in file-name order; the first network with a
 * name wins.
 *
 * <p>Unlike libcni, which gives up at the first file it cannot parse, every file is loaded on its own: a bad file is
 * reported in {@link #problems()} (and in the not-found message) without hiding the networks of the other files.
 *
 * <p>A {@code .conflist} without {@code plugins} gets its plugins from {@code <dir>/<name>/*.conf} in name order
 * (spec 1.1's plugin directories), unless it sets {@code loadOnlyInlinedPlugins}, in which case spec-model refuses it.
 * A list with inline plugins is taken as written: jcni does not append plugin files to it (later libcni versions do
 * unless {@code loadOnlyInlinedPlugins} is set).
 *
 * <p>Hostile files: only regular files are read (symbolic links to them are followed), and none larger than
 * {@link CniJson#MAX_DOCUMENT_BYTES}, checked before and while reading. A FIFO named {@code x.conflist} is reported as
 * a problem instead of blocking the load, a 1 GiB sparse file without being read (libcni reads both).
 */
public final class NetworkConfigs {
    /** A network and the file it came from. */
    public record Network(Path file, NetworkConfigList list) {
        public Network {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(list, "list");
        }
    }

    /** A file that could not be loaded, and why. */
    public record Problem(Path file, String message) {
        public Problem {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(message, "message");
        }
    }

    private final Path dir;
    private final List<Network> networks;
    private final List<Problem> problems;
    private final int files;

    private NetworkConfigs(Path dir, List<Network> networks, List<Problem> problems, int files) {
        this.dir = dir;
        this.networks = List.copyOf(networks);
        this.problems = List.copyOf(problems);
        this.files = files;
    }

    /**
     * Loads every {@code .conflist}, {@code .conf} and {@code .json} file in {@code dir} (not recursively). A missing
     * directory holds no networks, as in libcni.
     *
     * @throws CniRuntimeException if something other than a directory is there (a FIFO would block the listing for
     *                             ever), or the directory cannot be listed (code 5)
     */
    public static NetworkConfigs load(Path dir) throws CniRuntimeException {
        List<Path> lists = new ArrayList<>();
        List<Path> confs = new ArrayList<>();
        // The kind first (stat, nothing opened): the JDK opens a directory to list it with a plain open(2), which
        // waits for ever on a FIFO, and anything but a directory holds no configurations.
        String notDirectory = BoundedFiles.notADirectory(dir);
        if (notDirectory != null) {
            throw new CniRuntimeException("cannot read network configurations in " + dir + ": " + notDirectory,
                    new CniError(CniError.IO_FAILURE, "cannot read network configurations", notDirectory), null);
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (Files.isDirectory(entry)) {
                    continue;
                }
                String name = entry.getFileName().toString();
                if (name.endsWith(".conflist")) {
                    lists.add(entry);
                } else if (name.endsWith(".conf") || name.endsWith(".json")) {
                    confs.add(entry);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return new NetworkConfigs(dir, List.of(), List.of(), 0);
        } catch (IOException e) {
            throw new CniRuntimeException("cannot read network configurations in " + dir + ": " + IoText.reason(e),
                    new CniError(CniError.IO_FAILURE, "cannot read network configurations", IoText.reason(e)), e);
        }
        Collections.sort(lists);
        Collections.sort(confs);
        List<Network> networks = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        for (Path file : lists) {
            load(file, networks, problems);
        }
        for (Path file : confs) {
            load(file, networks, problems);
        }
        return new NetworkConfigs(dir, networks, problems, lists.size() + confs.size());
    }

    private static void load(Path file, List<Network> networks, List<Problem> problems) {
        try {
            networks.add(new Network(file, loadFile(file)));
        } catch (CniRuntimeException e) {
            problems.add(new Problem(file, e.getMessage()));
        }
    }

    /**
     * One configuration file: a {@code .conflist} as a list (with its plugin directory, see the class comment), any
     * other file as a single plugin configuration wrapped as a list of one ({@code NetworkConfigList.fromConf}).
     *
     * @throws CniRuntimeException naming the file: unreadable (5), not JSON or wrong types (6), invalid (7), bad
     *                             version (1)
     */
    public static NetworkConfigList loadFile(Path file) throws CniRuntimeException {
        byte[] bytes;
        try {
            bytes = BoundedFiles.read(file, CniJson.MAX_DOCUMENT_BYTES, BoundedFiles.Links.FOLLOW);
        } catch (IOException e) {
            throw new CniRuntimeException("error reading " + file + ": " + IoText.reason(e),
                    new CniError(CniError.IO_FAILURE, "error reading " + file, IoText.reason(e)), e);
        }
        try {
            if (file.getFileName().toString().endsWith(".conflist")) {
                NetworkConfigList list = CniJson.decodeNetworkConfigList(bytes);
                if (list.plugins().isEmpty()) {
                    list = list.withAdditionalPlugins(pluginFiles(file.toAbsolutePath().getParent(), list.name()));
                    if (list.plugins().isEmpty()) {
                        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "no plugin configs found",
                                "no \"plugins\" in the list and no *.conf files in "
                                        + file.toAbsolutePath().getParent().resolve(list.name()));
                    }
                }
                return list;
            }
            PluginConfig conf = CniJson.decodePluginConfig(bytes);
            if (conf.name().isEmpty()) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "name: missing network name");
            }
            return NetworkConfigList.fromConf(conf);
        } catch (CniException e) {
            throw new CniRuntimeException(file + ": " + e.getMessage(), e.error(), e);
        }
    }

    /** The plugin configurations in {@code <dir>/<network>/*.conf}, in name order. */
    private static List<PluginConfig> pluginFiles(Path dir, String network) throws CniException {
        Path pluginDir = dir.resolve(network);
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(pluginDir, "*.conf")) {
            for (Path entry : entries) {
                if (!Files.isDirectory(entry)) {
                    files.add(entry);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "failed to read plugin config files in " + pluginDir + ": "
                    + IoText.reason(e));
        }
        Collections.sort(files);
        List<PluginConfig> plugins = new ArrayList<>();
        for (Path file : files) {
            try {
                plugins.add(CniJson.decodePluginConfig(BoundedFiles.read(file, CniJson.MAX_DOCUMENT_BYTES,
                        BoundedFiles.Links.FOLLOW)));
            } catch (IOException e) {
                throw new CniException(CniError.IO_FAILURE, "error reading " + file + ": " + IoText.reason(e));
            } catch (CniException e) {
                throw new CniException(e.code(), file + ": " + e.getMessage());
            }
        }
        return plugins;
    }

    /** The directory these networks were loaded from. */
    public Path dir() {
        return dir;
    }

    /** The loaded networks in lookup order (conflists, then single configurations; by file name in each group). */
    public List<Network> networks() {
        return networks;
    }

    /** The files that could not be loaded, in lookup order. */
    public List<Problem> problems() {
        return problems;
    }

    /** The first network named {@code name}. */
    public Optional<Network> find(String name) {
        for (Network network : networks) {
            if (network.list().name().equals(name)) {
                return Optional.of(network);
            }
        }
        return Optional.empty();
    }

    /**
     * The first network named {@code name}, or libcni's error: {@code no net configurations found in <dir>} or
     * {@code no net configuration with name "x" in <dir>}, followed by the files that could not be loaded, since one
     * of them may be the one meant (code 7).
     */
    public NetworkConfigList require(String name) throws CniRuntimeException {
        Optional<Network> network = find(name);
        if (network.isPresent()) {
            return network.get().list();
        }
        String msg = files == 0 ? "no net configurations found in " + dir
                : "no net configuration with name \"" + name + "\" in " + dir;
        StringBuilder details = new StringBuilder();
        for (Problem problem : problems) {
            details.append(details.isEmpty() ? "files that could not be loaded: " : "; ").append(problem.message());
        }
        CniError error = new CniError(CniError.INVALID_NETWORK_CONFIG, msg, details.toString());
        throw new CniRuntimeException(error.message(), error, null);
    }
}
