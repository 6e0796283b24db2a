package io.jcni.netlink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.internal.ffm.Structs;
import io.jcni.netlink.internal.wire.Offsets;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Every compile-time size and offset the wire layer uses equals the one of the {@code MemoryLayout} it mirrors (which
 * {@link HeadersMatchTest} checks against gcc). Constants are matched to layouts by name, so none can be left out.
 */
class OffsetsMatchLayoutsTest {

    @Test
    void everyOffsetAndSizeMatchesItsLayout() throws Exception {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Field f : Offsets.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class) {
                continue;
            }
            String name = f.getName();
            int value = f.getInt(null);
            List<Long> matches = new ArrayList<>();
            for (StructLayout s : Structs.ALL) {
                String struct = s.name().orElseThrow().toUpperCase(Locale.ROOT);
                if (name.equals(struct + "_SIZE")) {
                    matches.add(s.byteSize());
                }
                for (MemoryLayout m : s.memberLayouts()) {
                    String member = m.name().map(n -> n.toUpperCase(Locale.ROOT)).orElse(null);
                    if (member != null && (name.equals(member) || name.equals(struct + "_" + member))) {
                        matches.add(s.byteOffset(MemoryLayout.PathElement.groupElement(m.name().orElseThrow())));
                    }
                }
            }
            if (matches.size() != 1) {
                problems.add(name + " matches " + matches.size() + " layout sizes/members");
            } else if (matches.getFirst() != value) {
                problems.add(name + " is " + value + ", the layout says " + matches.getFirst());
            }
            checked++;
        }
        assertThat(problems).isEmpty();
        assertThat(checked).isGreaterThan(50);
    }
}
