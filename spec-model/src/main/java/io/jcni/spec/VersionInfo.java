package io.jcni.spec;

import java.util.List;
import java.util.Objects;

/**
 * What a plugin answers to VERSION. Kept as strings: a runtime must be able to read any plugin's answer, including
 * versions it does not know.
 *
 * @param cniVersion        the protocol version of this answer
 * @param supportedVersions the versions the plugin supports
 */
public record VersionInfo(String cniVersion, List<String> supportedVersions) {
    public VersionInfo {
        Objects.requireNonNull(cniVersion, "cniVersion");
        supportedVersions = List.copyOf(supportedVersions);
    }

    /** The answer of a plugin that supports {@code versions}, to a request of version {@code cniVersion}. */
    public static VersionInfo of(CniVersion cniVersion, List<CniVersion> versions) {
        String[] texts = new String[versions.size()];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = versions.get(i).toString();
        }
        return new VersionInfo(cniVersion.toString(), List.of(texts));
    }

    /** True if the plugin lists exactly this version (libcni's reconciler compares the strings). */
    public boolean supports(CniVersion version) {
        return supportedVersions.contains(version.toString());
    }
}
