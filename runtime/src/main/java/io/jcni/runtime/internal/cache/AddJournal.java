package io.jcni.runtime.internal.cache;

import io.jcni.runtime.RuntimeConf;
import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What an ADD set out to do, written before it does it, so that a rollback cut short (by its budget, a kill of the
 * runtime, a crash) can be finished later: by the next ADD or DEL of the attachment, or by {@code gc --stale}.
 *
 * <p>One file per attachment being added, {@code <cacheDir>/journal/<network>-<containerID>-<ifname>} (the result
 * cache's naming, beside it), mode 0600 in a 0700 directory. It exists from before the first plugin starts until the
 * ADD's result is cached, or until its rollback has deleted everything the ADD may have made: a journal that outlives
 * its ADD's call is unfinished work. One JSON object per line, appended as the ADD goes:
 * <pre>
 * {"kind":"jcniAddJournalV1","network":N,"containerId":C,"ifName":I,"netns":P,"netnsId":"DEV:INO",
 *  "cniArgs":[[K,V],...],"capabilityArgs":{...},"config":BASE64}      the ADD, as the cache would record it
 * {"start":i}                  plugin i of the list is about to run: from here it may have made something
 * {"added":i,"result":{...}}   it exited 0 with this result (the last one is the rollback's prevResult)
 * {"failed":i}                 it failed by itself, and so undid its own work: it gets no DEL (a DEL works by name and
 *                              would delete what was there before, e.g. after "eth0 already exists")
 * {"deleted":i}                the rollback's DEL of plugin i succeeded
 * {"leftForCaller":true}       the runtime does not roll back (deleteOnAddFailure off): the caller's DEL is expected
 * </pre>
 * What is left to undo: the plugins started and not failed, less those deleted, in reverse order. A plugin started
 * without a recorded outcome (the runtime killed it, or died while it ran) is in that set, as the runtime's own
 * rollback sends DEL to a plugin it stopped.
 *
 * <p>Durability: the lines are written, not synced. A process that dies leaves them in the page cache, where the next
 * reader finds them; only a crash of the machine can lose the last ones, and after a reboot nothing of an attachment
 * survives but its IPAM reservation, which a GC with the cache's attachments as valid releases. {@code netnsId} is the
 * namespace's device and inode when the ADD started, so that a later rollback enters the namespace only if the path
 * still names that one (a name like {@code /var/run/netns/x} can be made again for another namespace).
 *
 * <p>A line that cannot be parsed ends the reading (a write cut short): what came before stands.
 */
public final class AddJournal {
    public static final String KIND = "jcniAddJournalV1";
    /** The largest journal read: the configuration (4 MiB, base64) and a result per plugin. */
    private static final int MAX_BYTES = 4 * CniJson.MAX_DOCUMENT_BYTES;

    private final Path dir;

    public AddJournal(Path cacheDir) {
        this.dir = cacheDir.resolve("journal");
    }

    public Path dir() {
        return dir;
    }

    /** The journal file of an attachment; the names were validated by the caller (no path separator). */
    public Path file(String network, String containerId, String ifName) {
        return dir.resolve(network + "-" + containerId + "-" + ifName);
    }

    /**
     * Starts the journal of an ADD (replacing a file of that name, which the caller has finished first).
     *
     * @param netnsId the namespace's {@code DEV:INO}, or "" if it could not be read
     * @param config  the configuration bytes the ADD runs (what the cache would record)
     */
    public Writer open(String network, RuntimeConf rt, String netnsId, byte[] config) throws IOException {
        LinkedHashMap<String, Json> header = new LinkedHashMap<>();
        header.put("kind", Json.of(KIND));
        header.put("network", Json.of(network));
        header.put("containerId", Json.of(rt.containerId()));
        header.put("ifName", Json.of(rt.ifName()));
        header.put("netns", Json.of(rt.netns()));
        header.put("netnsId", Json.of(netnsId));
        List<Json> pairs = new ArrayList<>();
        for (Map.Entry<String, String> pair : rt.args().pairs()) {
            pairs.add(Json.array(Json.of(pair.getKey()), Json.of(pair.getValue())));
        }
        header.put("cniArgs", new JsonArray(pairs));
        header.put("capabilityArgs", rt.capabilityArgs());
        header.put("config", Json.of(Base64.getEncoder().encodeToString(config)));
        AtomicFiles.ensureDirectory(dir);
        Path file = file(network, rt.containerId(), rt.ifName());
        FileChannel channel = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS),
                AtomicFiles.FILE_MODE);
        Writer writer = new Writer(file, channel);
        try {
            writer.line(JsonObject.of(header));
        } catch (IOException e) {
            writer.discard();
            throw e;
        }
        return writer;
    }

    /** The unfinished ADD of an attachment, if a journal is there. */
    public Optional<Entry> read(String network, String containerId, String ifName) throws CniException {
        return read(file(network, containerId, ifName));
    }

    /** Whether an attachment has a journal (one {@code lstat}). */
    public boolean exists(String network, String containerId, String ifName) {
        return Files.exists(file(network, containerId, ifName), LinkOption.NOFOLLOW_LINKS);
    }

    /** Every journal, by file name; files that are not journals are skipped. */
    public List<Entry> entries() throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(dir)) {
            for (Path file : listing) {
                if (!file.getFileName().toString().startsWith(".")) {
                    files.add(file);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        }
        Collections.sort(files);
        List<Entry> found = new ArrayList<>();
        for (Path file : files) {
            try {
                read(file).ifPresent(found::add);
            } catch (CniException e) {
                // Not a journal (or not one this version wrote): left alone, as the cache skips what it cannot read.
            }
        }
        return found;
    }

    /** Removes an attachment's journal; false if there was none. */
    public boolean delete(String network, String containerId, String ifName) throws IOException {
        return Files.deleteIfExists(file(network, containerId, ifName));
    }

    private static Optional<Entry> read(Path file) throws CniException {
        byte[] bytes;
        try {
            bytes = BoundedFiles.read(file, MAX_BYTES, BoundedFiles.Links.REFUSE);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "cannot read journal " + file + ": " + IoText.reason(e));
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        List<JsonObject> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            try {
                if (!(CniJson.parse(line.getBytes(StandardCharsets.UTF_8)) instanceof JsonObject object)) {
                    break;
                }
                lines.add(object);
            } catch (CniException e) {
                break; // a line cut short: what came before stands
            }
        }
        if (lines.isEmpty() || !(lines.getFirst().field("kind").orElse(Json.NULL) instanceof JsonString kind)
                || !kind.value().equals(KIND)) {
            throw new CniException(CniError.DECODING_FAILURE, "not an ADD journal: " + file);
        }
        return Optional.of(Entry.of(file, lines));
    }

    /**
     * An ADD as its journal recorded it.
     *
     * @param network     the network's name
     * @param runtimeConf the attachment and its arguments, with the namespace path the ADD had
     * @param netnsId     the namespace's {@code DEV:INO} at the ADD, or ""
     * @param config      the configuration bytes the ADD ran
     * @param toDelete    the plugins (indexes into the list) whose DEL is still owed, in the order to run them
     * @param lastResult  the last result a plugin returned, or null
     * @param leftForCaller the runtime left the rollback to its caller's DEL
     */
    public record Entry(Path file, String network, RuntimeConf runtimeConf, String netnsId, byte[] config,
            List<Integer> toDelete, JsonObject lastResult, boolean leftForCaller) {

        static Entry of(Path file, List<JsonObject> lines) throws CniException {
            ConfigNode header = ConfigNode.root(lines.getFirst(), CniError.DECODING_FAILURE);
            byte[] config;
            try {
                config = Base64.getDecoder().decode(header.string("config").orElse(""));
            } catch (IllegalArgumentException e) {
                throw new CniException(CniError.DECODING_FAILURE, "journal " + file + ": config: invalid base64");
            }
            List<Map.Entry<String, String>> pairs = new ArrayList<>();
            for (ConfigNode pair : header.array("cniArgs")) {
                List<String> kv = pair.asStringList();
                if (kv.size() != 2) {
                    throw pair.invalid("expected a [key, value] pair");
                }
                pairs.add(Map.entry(kv.get(0), kv.get(1)));
            }
            Optional<ConfigNode> caps = header.object("capabilityArgs");
            RuntimeConf rt = new RuntimeConf(header.string("containerId").orElse(""),
                    header.string("netns").orElse(""), header.string("ifName").orElse(""), CniArgs.of(pairs),
                    caps.isEmpty() ? JsonObject.EMPTY : caps.get().asObject());
            TreeSet<Integer> started = new TreeSet<>();
            TreeSet<Integer> done = new TreeSet<>();
            JsonObject lastResult = null;
            boolean leftForCaller = false;
            for (JsonObject line : lines.subList(1, lines.size())) {
                if (index(line, "start") >= 0) {
                    started.add(index(line, "start"));
                } else if (index(line, "added") >= 0) {
                    if (line.field("result").orElse(Json.NULL) instanceof JsonObject result) {
                        lastResult = result;
                    }
                } else if (index(line, "failed") >= 0) {
                    done.add(index(line, "failed"));
                } else if (index(line, "deleted") >= 0) {
                    done.add(index(line, "deleted"));
                } else if (line.has("leftForCaller")) {
                    leftForCaller = true;
                }
            }
            started.removeAll(done);
            return new Entry(file, header.string("network").orElse(""), rt, header.string("netnsId").orElse(""),
                    config, List.copyOf(started.descendingSet()), lastResult, leftForCaller);
        }

        private static int index(JsonObject line, String key) {
            if (line.field(key).orElse(Json.NULL) instanceof JsonNumber number) {
                long i = number.toLong().orElse(-1);
                return i >= 0 && i < Integer.MAX_VALUE ? (int) i : -1;
            }
            return -1;
        }

        public Entry {
            config = config.clone();
            toDelete = List.copyOf(toDelete);
        }

        @Override
        public byte[] config() {
            return config.clone();
        }
    }

    /**
     * The journal of one ADD while it runs. {@link #started} must succeed before the plugin starts (an ADD that cannot
     * record what it starts does not start it); the other records are best effort (a missing outcome only makes a
     * later rollback send a DEL the plugin did not need). Not thread-safe: one ADD, one thread.
     */
    public static final class Writer implements AutoCloseable {
        private final Path file;
        private final FileChannel channel;
        private boolean closed;

        Writer(Path file, FileChannel channel) {
            this.file = file;
            this.channel = channel;
        }

        public Path file() {
            return file;
        }

        /** Plugin {@code index} is about to run. */
        public void started(int index) throws IOException {
            line(JsonObject.of("start", Json.of(index)));
        }

        /** Plugin {@code index} exited 0 with {@code result}. */
        public void added(int index, CniResult result) {
            quietly(JsonObject.of("added", Json.of(index), "result", CniJson.toJson(result)));
        }

        /** Plugin {@code index} failed by itself (it undid its own work). */
        public void failed(int index) {
            quietly(JsonObject.of("failed", Json.of(index)));
        }

        /** The rollback's DEL of plugin {@code index} succeeded. */
        public void deleted(int index) {
            quietly(JsonObject.of("deleted", Json.of(index)));
        }

        /** No rollback: the caller's DEL is expected. */
        public void leftForCaller() {
            quietly(JsonObject.of("leftForCaller", Json.of(true)));
        }

        /** The ADD is over and nothing is owed: the journal goes. */
        public void discard() throws IOException {
            close();
            Files.deleteIfExists(file);
        }

        /** Closes the file and leaves it: unfinished work for a later call. Idempotent. */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                try {
                    channel.close();
                } catch (IOException e) {
                    // Closing a file opened for writing only fails on I/O errors the lines already met.
                }
            }
        }

        void line(JsonObject record) throws IOException {
            byte[] json = CniJson.encode(record);
            ByteBuffer buffer = ByteBuffer.allocate(json.length + 1).put(json).put((byte) '\n').flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }

        private void quietly(JsonObject record) {
            try {
                line(record);
            } catch (IOException e) {
                // See the class comment: outcomes are best effort.
            }
        }
    }
}
