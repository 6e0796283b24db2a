package io.jcni.runtime;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

    /** Equal when the bytes are equal (not the same array) and the other fields are. */
    @Override
    public boolean equals(Object other) {
        return other instanceof CachedAttachment that && network.equals(that.network)
                && runtimeConf.equals(that.runtimeConf) && Arrays.equals(config, that.config);
    }

    @Override
    public int hashCode() {
        return (31 * network.hashCode() + runtimeConf.hashCode()) * 31 + Arrays.hashCode(config);
    }

    @Override
    public String toString() {
        return "CachedAttachment[network=" + network + ", runtimeConf=" + runtimeConf + ", config="
                + new String(config, StandardCharsets.UTF_8) + "]";
    }
}
