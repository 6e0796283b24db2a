package io.jcni.plugins.internal.service;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * GC against the calls in flight, per network: ADD, DEL and CHECK of a network pass its gate together, a GC of that
 * network alone. A runtime that killed a client (its timeout) thinks that call over, but the service may still be
 * running it; a GC the runtime then sends must not run beside it, or an ADD finishing after the GC keeps an address
 * the GC meant to release (and an ADD starting during the GC, which its list of valid attachments cannot name, would
 * lose its new address to it). Other networks are not concerned: their calls and GCs never wait here for this one.
 *
 * <p>Every wait has a deadline ({@link TimeoutException}: answered "try again later") and ends on an interrupt (the
 * client went away). A GC waiting for its network holds back that network's new calls, so that a steady stream of
 * them cannot starve it, until it runs or gives up.
 *
 * <p>A call that was cancelled and hung (written off by the service's watchdog) gives its pass back
 * ({@link Pass#close()} from the watchdog's thread): a cancelled call never commits (the skel refuses to), so a GC may
 * run beside what is left of it, and its network's GCs are not blocked for as long as it hangs.
 */
final class NetworkGates {
    /** Per network. Monitor: the map. */
    private final Map<String, Gate> gates = new HashMap<>();

    private static final class Gate {
        int calls;
        boolean collecting;
        int collectorsWaiting;

        boolean idle() {
            return calls == 0 && !collecting && collectorsWaiting == 0;
        }
    }

    /** A pass through one network's gate, as a call or as its GC; closing it (once, from any thread) lets others on. */
    final class Pass implements AutoCloseable {
        private final String network;
        private final boolean collector;
        private boolean released;

        private Pass(String network, boolean collector) {
            this.network = network;
            this.collector = collector;
        }

        @Override
        public void close() {
            synchronized (gates) {
                if (released) {
                    return;
                }
                released = true;
                Gate g = gates.get(network);
                if (collector) {
                    g.collecting = false;
                } else {
                    g.calls--;
                }
                if (g.idle()) {
                    gates.remove(network);
                }
                gates.notifyAll();
            }
        }
    }

    /** A pass without waiting, or null if the caller would have to wait ({@link #call} or {@link #collect}). */
    Pass tryPass(String network, boolean collector) {
        synchronized (gates) {
            Gate g = gates.get(network);
            if (g == null) {
                g = gate(network);
            } else if (g.collecting || g.collectorsWaiting > 0 || (collector && g.calls > 0)) {
                return null;
            }
            if (collector) {
                g.collecting = true;
            } else {
                g.calls++;
            }
            return new Pass(network, collector);
        }
    }

    /** An ADD, DEL or CHECK of {@code network}: waits while a GC of that network runs or waits. */
    Pass call(String network, long deadline) throws TimeoutException, InterruptedException {
        synchronized (gates) {
            Gate g = gate(network);
            try {
                while (g.collecting || g.collectorsWaiting > 0) {
                    await(deadline, "a GC of network \"" + network + "\" is running");
                }
            } catch (TimeoutException | InterruptedException e) {
                forget(network, g);
                throw e;
            }
            g.calls++;
            return new Pass(network, false);
        }
    }

    /** A GC of {@code network}: waits until no call of that network (nor another GC of it) runs. */
    Pass collect(String network, long deadline) throws TimeoutException, InterruptedException {
        synchronized (gates) {
            Gate g = gate(network);
            g.collectorsWaiting++;
            try {
                while (g.collecting || g.calls > 0) {
                    await(deadline, (g.collecting ? "another GC" : g.calls + " call(s)") + " of network \""
                            + network + "\" still running");
                }
            } catch (TimeoutException | InterruptedException e) {
                g.collectorsWaiting--;
                forget(network, g);
                gates.notifyAll(); // the calls held back by this GC go on
                throw e;
            }
            g.collectorsWaiting--;
            g.collecting = true;
            return new Pass(network, true);
        }
    }

    /** Networks with a call or GC in flight or waiting (for tests). */
    int busyNetworks() {
        synchronized (gates) {
            return gates.size();
        }
    }

    private Gate gate(String network) {
        Gate g = gates.get(network);
        if (g == null) {
            g = new Gate();
            gates.put(network, g);
        }
        return g;
    }

    private void forget(String network, Gate g) {
        if (g.idle()) {
            gates.remove(network);
        }
    }

    private void await(long deadline, String why) throws TimeoutException, InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new TimeoutException(why);
        }
        gates.wait(Math.max(1, left / 1_000_000));
    }
}
