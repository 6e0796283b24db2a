package io.jcni.runtime;

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
}
