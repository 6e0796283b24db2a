package io.jcni.plugins.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import org.junit.jupiter.api.Test;

/** {@link Timing}: one debug line per handler with the phases its steps marked, nothing without JCNI_DEBUG. */
class TimingTest {
    static final class Timed implements CniPlugin {
        @Override
        public CniResult add(CniRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void del(CniRequest request) {
            Timing.phase("first");
            Timing.phase("second-phase");
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
    void debugModeWritesOneLineWithEveryPhaseAndTheHandlersTotal() {
        assertThat(del("1").stderr()).containsPattern(
                "t: timing DEL: first \\d+ us, second-phase \\d+ us, handler \\d+ us\n");
    }

    @Test
    void otherwiseNothingIsWritten() {
        assertThat(del("0").stderr()).doesNotContain("timing");
    }

    @Test
    void aStepOutsideAnyCallCountsNothingAndAfterACallTheThreadHoldsNoTiming() {
        Timing.phase("nobody-listens");
        del("1");
        Timing outer = Timing.begin();
        try {
            Timing.phase("outer-first");
            del("1"); // an in-process delegate's call, with its own line
            Timing.phase("outer-second");
            assertThat(outer.line()).matches("outer-first \\d+ us, outer-second \\d+ us, handler \\d+ us");
        } finally {
            outer.end();
        }
        Timing.phase("nobody-listens-again");
        Timing after = Timing.begin();
        try {
            assertThat(after.line()).as("a fresh call starts empty").matches("handler \\d+ us");
        } finally {
            after.end();
        }
    }
}
