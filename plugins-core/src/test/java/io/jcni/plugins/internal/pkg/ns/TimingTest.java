package io.jcni.plugins.internal.pkg.ns;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniVersion;
import org.junit.jupiter.api.Test;

/** {@link Timing}: one debug line with every phase and the handler's total, nothing without JCNI_DEBUG. */
class TimingTest {
    static final class Timed implements CniPlugin {
        @Override
        public io.jcni.spec.CniResult add(CniRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void del(CniRequest request) throws io.jcni.spec.CniException {
            Timing timing = Timing.start(request.log(), "DEL");
            timing.mark("first");
            timing.mark("second-phase");
            timing.report();
        }

        @Override
        public void check(CniRequest request) {
        }
    }

    PluginCall.Outcome del(String debug) {
        return PluginCall.of("DEL").env("JCNI_DEBUG", debug)
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"t\"}")
                .run(Skel.of("t", new Timed(), CniVersion.SUPPORTED)).ok();
    }

    @Test
    void debugModeWritesOneLineWithEveryPhase() {
        assertThat(del("1").stderr()).containsPattern(
                "t: timing DEL: first \\d+ us, second-phase \\d+ us, handler \\d+ us\n");
    }

    @Test
    void otherwiseNothingIsWritten() {
        assertThat(del("0").stderr()).doesNotContain("timing");
    }
}
