package io.jcni.runtime;

import java.util.Objects;

/**
 * One attachment found in the result cache (libcni's {@code NetworkAttachment}): which network, the runtime
 * configuration it was added with (container ID, namespace when the cache recorded it, interface, CNI_ARGS, capability
 * arguments), and the configuration bytes.
 */
public record CachedAttachment(String network, RuntimeConf runtimeConf, byte[] config) {
    public CachedAttachment {
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(runtimeConf, "runtimeConf");
        config = Objects.requireNonNull(config, "config").clone();
    }

    /** A copy of the configuration bytes. */
    @Override
    public byte[] config() {
        return config.clone();
    }
}
