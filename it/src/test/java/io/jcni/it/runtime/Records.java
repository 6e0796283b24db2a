package io.jcni.it.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The trivial plugin's record file ({@code recordFile}/{@code JCNI_TRIVIAL_RECORD}): one JSON line per call. */
final class Records {
    private Records() {
    }

    /** Each call: {@code {"command", "env": {CNI_*}, "stdin": "<config as text>"}}, with stdin parsed as JSON. */
    static List<JsonNode> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<JsonNode> calls = new ArrayList<>();
        for (String line : lines) {
            var call = (com.fasterxml.jackson.databind.node.ObjectNode) Json.parse(line);
            String stdin = call.path("stdin").asText();
            if (!stdin.isEmpty()) {
                call.set("config", Json.parse(stdin));
            }
            calls.add(call);
        }
        return calls;
    }

    static List<String> commands(Path file) {
        return read(file).stream().map(c -> c.path("command").asText()).toList();
    }
}
