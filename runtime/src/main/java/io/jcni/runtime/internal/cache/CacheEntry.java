package io.jcni.runtime.internal.cache;

import io.jcni.spec.CniArgs;
import io.jcni.spec.JsonObject;

/**
 * One {@code cniCacheV1} file as read: every field libcni writes, plus {@code netns} (written by libcni from 1.2 and by
 * jcni; libcni 1.1.2 ignores it when reading). {@code result} is null when the file has none.
 */
record CacheEntry(String containerId, byte[] config, String ifName, String networkName, String netns, CniArgs cniArgs,
        JsonObject capabilityArgs, JsonObject result) {
}
