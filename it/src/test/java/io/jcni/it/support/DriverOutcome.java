package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What one run of the Go libcni driver produced: the process and the one JSON document it printed on stdout.
 * Exit 0 means success and {@link #answer()} is the command's output; exit 1 means libcni returned an error and
 * {@link #error()} is its {@code err.Error()} text verbatim; exit 2 is a bad driver command line.
 */
public record DriverOutcome(ProcessResult process, JsonNode json) {

    static DriverOutcome of(ProcessResult process) {
        String out = process.stdout().strip();
        if (process.timedOut() || out.isEmpty()) {
            throw new AssertionError("libcni driver printed no JSON: " + process.describe());
        }
        return new DriverOutcome(process, Json.parse(out));
    }

    public boolean succeeded() {
        return process.exitCode() == 0;
    }

    /** The success document; fails the test with the driver's output if the command failed. */
    public JsonNode answer() {
        if (!succeeded()) {
            throw new AssertionError("libcni driver failed: " + process.describe());
        }
        return json;
    }

    /** libcni's error text; fails the test if the command succeeded. */
    public String error() {
        if (succeeded()) {
            throw new AssertionError("libcni driver succeeded, an error was expected: " + process.describe());
        }
        return json.path("error").asText();
    }

    /**
     * The plugin's CNI error found in libcni's error chain ({@code {code,msg,details}}), or a missing node when the
     * error came from libcni itself (e.g. plugin not found, result not decodable).
     */
    public JsonNode cniError() {
        return json.path("cniError");
    }

    /** What plugins wrote to stderr (libcni passes it through on success and quotes it in some errors). */
    public String stderr() {
        return process.stderr();
    }
}
