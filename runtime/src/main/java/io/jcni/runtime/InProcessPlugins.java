package io.jcni.runtime;

import io.jcni.spec.CniException;
import io.jcni.spec.CniNames;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An immutable map from plugin type to an in-process implementation. A runtime configured with one runs those types in
 * its own JVM instead of exec'ing them ({@link CniRuntime.Options#withInProcess}); a plugin's {@link Delegation} runs
 * a delegate in-process when its executable in CNI_PATH is a jcni launcher of a registered type.
 */
public final class InProcessPlugins {
    private static final InProcessPlugins NONE = new InProcessPlugins(Map.of());

    private final Map<String, InProcessPlugin> byType;

    private InProcessPlugins(Map<String, InProcessPlugin> byType) {
        this.byType = byType;
    }

    /**
     * The given implementations, keyed by plugin type.
     *
     * @throws IllegalArgumentException if a type is not a valid plugin type (empty, {@code .}, {@code ..}, or with a
     *                                  path separator)
     * @throws NullPointerException     for a null key or value
     */
    public static InProcessPlugins of(Map<String, InProcessPlugin> byType) {
        if (byType.isEmpty()) {
            return NONE;
        }
        LinkedHashMap<String, InProcessPlugin> copy = new LinkedHashMap<>();
        for (Map.Entry<String, InProcessPlugin> entry : byType.entrySet()) {
            String type = Objects.requireNonNull(entry.getKey(), "plugin type");
            try {
                CniNames.requirePluginType(type, "type");
            } catch (CniException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            copy.put(type, Objects.requireNonNull(entry.getValue(), "in-process plugin"));
        }
        return new InProcessPlugins(Collections.unmodifiableMap(copy));
    }

    /** No in-process plugins: everything is exec'd. */
    public static InProcessPlugins none() {
        return NONE;
    }

    /** The implementation registered for {@code type}. */
    public Optional<InProcessPlugin> find(String type) {
        return Optional.ofNullable(byType.get(type));
    }

    /** The registered types, in registration order. */
    public Set<String> types() {
        return byType.keySet();
    }

    @Override
    public String toString() {
        return "InProcessPlugins" + byType.keySet();
    }
}
