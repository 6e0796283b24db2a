package io.jcni.runtime;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * What the result cache holds about one attachment besides its result (libcni's {@code GetNetworkListCachedConfig}):
 * the configuration bytes the ADD ran with, and the runtime configuration with the cached CNI_ARGS and capability
 * arguments.
 *
 * @param config      the network configuration exactly as it was passed to ADD (a conflist, or a single plugin config)
 * @param runtimeConf the caller's runtime configuration with {@code args} and {@code capabilityArgs} from the cache
 */
public record CachedConfig(byte[] config, RuntimeConf runtimeConf) {
    public CachedConfig {
        config = Objects.requireNonNull(config, "config").clone();
        Objects.requireNonNull(runtimeConf, "runtimeConf");
    }

    /** A copy of the configuration bytes. */
    @Override
    public byte[] config() {
        return config.clone();
    }

    /** Equal when the bytes are equal (not the same array) and the runtime configurations are. */
    @Override
    public boolean equals(Object other) {
        return other instanceof CachedConfig that && Arrays.equals(config, that.config)
                && runtimeConf.equals(that.runtimeConf);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(config) + runtimeConf.hashCode();
    }

    @Override
    public String toString() {
        return "CachedConfig[config=" + new String(config, StandardCharsets.UTF_8) + ", runtimeConf=" + runtimeConf
                + "]";
    }
}
