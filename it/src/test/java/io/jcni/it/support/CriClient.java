package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A client of the Kubernetes Container Runtime Interface (API {@code runtime.v1}) on containerd's socket: one
 * process of {@code src/test/containerd/cri_client.py} under Debian's Python, which builds the API from the
 * descriptors in containerd's own binary (no CRI source or crictl exists here; see the script's docs). Requests and
 * responses are the messages' protobuf JSON, with the field names of the CRI documentation in lowerCamelCase
 * ({@code podSandboxId}, {@code portMappings}, {@code "protocol": "UDP"}).
 *
 * <p>One call at a time (the script answers line by line); {@link #close()} ends the process.
 */
public final class CriClient implements AutoCloseable {
    private final Process process;
    private final Writer in;
    private final BufferedReader out;

    private CriClient(Process process) {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** What one call answered: the response, or the gRPC status code and details; {@code nanos}: the call alone. */
    public record Answer(String method, JsonNode response, String code, String details, long nanos) {
        public boolean ok() {
            return code == null;
        }

        /** The response; fails the test with the status if the call failed. */
        public JsonNode require() {
            if (!ok()) {
                throw new AssertionError("CRI " + method + " failed: " + code + ": " + details);
            }
            return response;
        }
    }

    /**
     * Starts the client for containerd's socket. Fails (not skips) when Debian's Python, its grpcio and protobuf
     * modules, or containerd's binary are missing: a containerd test must not pass by not running.
     */
    public static CriClient start(Path socket) {
        Path python = Locations.debianPython();
        ProcessBuilder builder = new ProcessBuilder(python.toString(),
                Locations.containerdSupport().resolve("cri_client.py").toString(), "--socket", socket.toString(),
                "--containerd", Locations.containerd().toString());
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        try {
            CriClient client = new CriClient(builder.start());
            String ready = client.out.readLine();
            if (ready == null || !Json.parse(ready).path("ready").asBoolean()) {
                client.close();
                throw new AssertionError("the CRI client did not start (" + python + " with python3-grpcio and "
                        + "python3-protobuf: scripts/setup installs them); it printed: " + ready);
            }
            return client;
        } catch (IOException e) {
            throw new AssertionError("cannot start the CRI client with " + python + ": " + e.getMessage(), e);
        }
    }

    /** Calls {@code method} of RuntimeService (or {@code "ImageService/ListImages"}) with {@code request}. */
    public Answer call(String method, JsonNode request) {
        ObjectNode ask = Json.object();
        ask.put("call", method);
        ask.set("request", request);
        try {
            in.write(Json.write(ask) + "\n");
            in.flush();
            String line = out.readLine();
            if (line == null) {
                throw new AssertionError("the CRI client ended during " + method);
            }
            JsonNode answer = Json.parse(line);
            JsonNode error = answer.path("error");
            return new Answer(method, answer.path("response"), error.isMissingNode() ? null : error.path("code")
                    .asText(), error.path("details").asText(null), answer.path("ns").asLong());
        } catch (IOException e) {
            throw new UncheckedIOException("the CRI client is gone", e);
        }
    }

    /** {@link #call} with the request's JSON text; fails the test unless the call succeeded. */
    public JsonNode require(String method, String request) {
        return call(method, Json.parse(request)).require();
    }

    /** The ids of the pod sandboxes containerd knows, ready or not. */
    public List<String> sandboxes() {
        return ids(require("ListPodSandbox", "{}").path("items"));
    }

    /** The ids of the containers containerd knows, in any state. */
    public List<String> containers() {
        return ids(require("ListContainers", "{}").path("containers"));
    }

    private static List<String> ids(JsonNode items) {
        return items.valueStream().map(i -> i.path("id").asText()).toList();
    }

    /** Whether containerd says its network is ready (a CNI configuration loaded): {@code Status}'s condition. */
    public boolean networkReady() {
        for (JsonNode condition : require("Status", "{}").path("status").path("conditions")) {
            if (condition.path("type").asText().equals("NetworkReady")) {
                return condition.path("status").asBoolean();
            }
        }
        return false;
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException ignored) {
            // the client is gone already
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
