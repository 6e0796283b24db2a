package io.jcni.runtime.internal;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniVersion;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import java.util.List;

/**
 * What a list operation needs of a network, for a conflist or for a single plugin configuration.
 * {@code validAttachments} is what GC hands its plugins; empty for the other verbs, which do not send it.
 */
record Net(String name, CniVersion version, List<PluginConfig> plugins, byte[] bytes, boolean disableCheck,
        boolean disableGC, List<GcAttachment> validAttachments) {
    static Net of(NetworkConfigList list) {
        return new Net(list.name(), list.cniVersion(), list.plugins(), list.bytes(), list.disableCheck(),
                list.disableGC(), List.of());
    }

    static Net of(PluginConfig conf) {
        return new Net(conf.name(), conf.cniVersion(), List.of(conf), CniJson.encode(conf), false, false,
                List.of());
    }

    /**
     * The network an ADD ran, from the configuration bytes it cached or journaled: a conflist (a document with
     * {@code plugins}) or a single plugin configuration, as libcni caches what {@code AddNetworkList} and
     * {@code AddNetwork} were given.
     */
    static Net decode(byte[] config) throws CniException {
        Json json = CniJson.parse(config);
        if (!(json instanceof JsonObject object)) {
            throw new CniException(CniError.DECODING_FAILURE, "the configuration is not a JSON object");
        }
        if (object.has("plugins")) {
            return of(NetworkConfigList.decode(config));
        }
        Net single = of(PluginConfig.of(object));
        return new Net(single.name(), single.version(), single.plugins(), config.clone(), false, false, List.of());
    }

    Net withValidAttachments(List<GcAttachment> valid) {
        return new Net(name, version, plugins, bytes, disableCheck, disableGC, List.copyOf(valid));
    }

    /** The same network under the name its cache entry was filed with (the names agree unless edited by hand). */
    Net named(String network) {
        return network.equals(name) ? this
                : new Net(network, version, plugins, bytes, disableCheck, disableGC, validAttachments);
    }
}
