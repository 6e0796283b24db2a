package io.jcni.it.support;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The runtime's side of one attachment, as libcni's {@code RuntimeConf} holds it (the netns path is passed
 * separately, because cached-result/cached-config do not need it).
 *
 * @param cniArgs CNI_ARGS as {@code K=V;K2=V2}, or null
 * @param capabilityArgs a JSON object of capability arguments ({@code {"portMappings":[...]}}), or null
 */
public record Attachment(String containerId, String ifName, String cniArgs, String capabilityArgs) {

    public static Attachment of(String containerId, String ifName) {
        return new Attachment(containerId, ifName, null, null);
    }

    public Attachment withCniArgs(String cniArgs) {
        return new Attachment(containerId, ifName, cniArgs, capabilityArgs);
    }

    public Attachment withCapabilityArgs(String capabilityArgsJson) {
        return new Attachment(containerId, ifName, cniArgs, capabilityArgsJson);
    }

    /**
     * cnitool's container ID for a namespace path: {@code cnitool-} and the hex of the first 10 bytes of the SHA-512
     * of the absolute path. The libcni driver uses it when no container ID is given, as {@code jcni} must.
     */
    public static String cnitoolContainerId(Path netns) {
        try {
            byte[] sum = MessageDigest.getInstance("SHA-512")
                    .digest(netns.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8));
            return "cnitool-" + HexFormat.of().formatHex(sum, 0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-512", e);
        }
    }
}
