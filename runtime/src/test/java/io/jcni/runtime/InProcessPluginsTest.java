package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InProcessPluginsTest {
    private static final InProcessPlugin OK = (env, stdin, stdout, stderr) -> 0;

    @Test
    void findsRegisteredTypesOnly() {
        var byType = new LinkedHashMap<String, InProcessPlugin>();
        byType.put("bridge", OK);
        byType.put("host-local", OK);
        InProcessPlugins plugins = InProcessPlugins.of(byType);
        byType.clear();

        assertThat(plugins.types()).containsExactly("bridge", "host-local");
        assertThat(plugins.find("bridge")).containsSame(OK);
        assertThat(plugins.find("ptp")).isEmpty();
        assertThatThrownBy(() -> plugins.types().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void noneHasNoTypes() {
        assertThat(InProcessPlugins.none().types()).isEmpty();
        assertThat(InProcessPlugins.of(Map.of())).isSameAs(InProcessPlugins.none());
    }

    @Test
    void aTypeThatIsAPathIsRefused() {
        assertThatThrownBy(() -> InProcessPlugins.of(Map.of("../bridge", OK)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid plugin type");
        assertThatThrownBy(() -> InProcessPlugins.of(Map.of("", OK))).isInstanceOf(IllegalArgumentException.class);
    }
}
