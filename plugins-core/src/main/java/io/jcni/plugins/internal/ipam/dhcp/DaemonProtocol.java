package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniNames;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the dhcp plugin and the daemon say to each other over the daemon's Unix socket: one request and one reply per
 * connection, each a frame of a 4-byte big-endian length and that many bytes of a JSON object (spec-model's strict
 * codec, UTF-8). A frame of 0 bytes or more than {@link #MAX_FRAME} is refused before anything is read or allocated.
 *
 * <p>Request: {@code {"jcniDhcp": 1, "command": "ADD"|"DEL"|"CHECK"|"GC"|"STATUS", "network", "containerId",
 * "netns", "ifName", "args" (CNI_ARGS), "ipam" (the configuration's ipam object), "valid" (GC's
 * cni.dev/valid-attachments)}}. Reply: {@code {"jcniDhcp": 1}} (done), {@code {"jcniDhcp": 1, "result": {...}}} (a
 * 1.1.0 result) or {@code {"jcniDhcp": 1, "error": {"code", "msg", "details"}}} (the CNI error the plugin prints).
 * The daemon checks every field as untrusted input and answers an error frame to anything malformed.
 */
final class DaemonProtocol {
    private DaemonProtocol() {
    }

    static final int VERSION = 1;
    /** The largest frame: room for a GC's list of some ten thousand attachments. */
    static final int MAX_FRAME = 4 << 20;
    private static final String MARK = "jcniDhcp";

    /** The commands. */
    static final String ADD = "ADD";
    static final String DEL = "DEL";
    static final String CHECK = "CHECK";
    static final String GC = "GC";
    static final String STATUS = "STATUS";

    /** A request as the daemon reads it, every field checked. */
    record Request(String command, String network, String containerId, String netns, String ifName, String args,
            JsonObject ipam, List<GcAttachment> valid) {
    }

    static JsonObject request(String command, String network, String containerId, String netns, String ifName,
            String args, JsonObject ipam, List<GcAttachment> valid) {
        List<Json> attachments = new ArrayList<>();
        if (valid != null) {
            for (GcAttachment a : valid) {
                attachments.add(JsonObject.of("containerID", Json.of(a.containerId()), "ifname", Json.of(a.ifName())));
            }
        }
        return JsonObject.of(MARK, Json.of(VERSION), "command", Json.of(command), "network", Json.of(network),
                "containerId", Json.of(containerId), "netns", Json.of(netns), "ifName", Json.of(ifName), "args",
                Json.of(args), "ipam", ipam, "valid", valid == null ? Json.NULL : new JsonArray(attachments));
    }

    /** Reads a request; malformed is code 6 (wrong JSON types) or 4/7 (bad names), as the plugin's checks are. */
    static Request parseRequest(Json json) throws CniException {
        ConfigNode root = ConfigNode.at(json, "request", CniError.DECODING_FAILURE);
        root.asObject();
        long version = root.requireField(MARK).asLong(0, Integer.MAX_VALUE);
        if (version != VERSION) {
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION, "dhcp daemon protocol version " + version
                    + " is not " + VERSION, "the plugin and the daemon come from different jcni releases");
        }
        String command = root.requireString("command");
        if (!command.equals(ADD) && !command.equals(DEL) && !command.equals(CHECK) && !command.equals(GC)
                && !command.equals(STATUS)) {
            throw new CniException(CniError.DECODING_FAILURE, "unknown dhcp daemon command \"" + command + "\"");
        }
        String network = "";
        String containerId = "";
        String ifName = "";
        String netns = root.string("netns").orElse("");
        JsonObject ipam = root.object("ipam").isPresent() ? root.requireField("ipam").asObject() : JsonObject.EMPTY;
        if (!command.equals(STATUS)) {
            network = CniNames.requireNetworkName(root.requireString("network"));
        }
        if (command.equals(ADD) || command.equals(DEL) || command.equals(CHECK)) {
            containerId = CniNames.requireContainerId(root.requireString("containerId"));
            ifName = CniNames.requireInterfaceName(root.requireString("ifName"));
        }
        if (command.equals(ADD) && netns.isEmpty()) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "ADD without a netns");
        }
        List<GcAttachment> valid = null;
        Optional<ConfigNode> list = root.field("valid");
        if (list.isPresent()) {
            valid = new ArrayList<>();
            for (ConfigNode entry : list.get().elements()) {
                valid.add(new GcAttachment(entry.requireString("containerID"), entry.requireString("ifname")));
            }
        }
        if (command.equals(GC) && valid == null) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "GC without cni.dev/valid-attachments",
                    "a missing list must not read as \"nothing is valid\"");
        }
        return new Request(command, network, containerId, netns, ifName, root.string("args").orElse(""), ipam,
                valid);
    }

    static JsonObject ok() {
        return JsonObject.of(MARK, Json.of(VERSION));
    }

    static JsonObject ok(CniResult result) {
        return JsonObject.of(MARK, Json.of(VERSION), "result", CniJson.toJson(result));
    }

    static JsonObject error(CniError error) {
        JsonObject body = JsonObject.of("code", Json.of(error.code()), "msg", Json.of(error.msg()), "details",
                Json.of(error.details() == null ? "" : error.details()));
        return JsonObject.of(MARK, Json.of(VERSION), "error", body);
    }

    /**
     * The plugin's reading of a reply: the result (empty for a reply without one), or the daemon's error thrown as
     * the CNI error it is.
     */
    static Optional<CniResult> parseReply(Json json) throws CniException {
        ConfigNode root = ConfigNode.at(json, "reply", CniError.DECODING_FAILURE);
        root.asObject();
        Optional<ConfigNode> error = root.object("error");
        if (error.isPresent()) {
            ConfigNode e = error.get();
            int code = e.requireField("code").asInt(1, Integer.MAX_VALUE);
            String details = e.string("details").orElse("");
            throw new CniException(code, e.requireString("msg"), details.isEmpty() ? null : details);
        }
        Optional<ConfigNode> result = root.object("result");
        if (result.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(CniJson.decodeResult(result.get().asObject(), CniVersion.LATEST));
    }

    // ------------------------------------------------------------------------------------------------ frames

    static void write(WritableByteChannel channel, JsonObject body) throws IOException {
        byte[] bytes = CniJson.encode(body);
        ByteBuffer frame = ByteBuffer.allocate(4 + bytes.length);
        frame.putInt(bytes.length).put(bytes).flip();
        while (frame.hasRemaining()) {
            channel.write(frame);
        }
    }

    /** A frame's body; {@link FrameException} when its length is out of bounds, EOF when the peer closed early. */
    static byte[] read(ReadableByteChannel channel) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(4);
        fill(channel, header);
        int length = header.flip().getInt();
        if (length <= 0 || length > MAX_FRAME) {
            throw new FrameException("a frame of " + Integer.toUnsignedString(length) + " bytes (1 to " + MAX_FRAME
                    + " allowed)");
        }
        ByteBuffer body = ByteBuffer.allocate(length);
        fill(channel, body);
        return body.array();
    }

    private static void fill(ReadableByteChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new EOFException("the connection closed after " + buffer.position() + " of "
                        + buffer.capacity() + " bytes");
            }
        }
    }

    /** A frame whose length is out of bounds. */
    static final class FrameException extends IOException {
        private static final long serialVersionUID = 1L;

        FrameException(String message) {
            super(message);
        }
    }
}
