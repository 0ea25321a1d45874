package dev.dprof.agent;

import java.util.ArrayList;
import java.util.List;

/**
 * How long each phase of the agent's start took, for the opt-in timing line ({@code timing=true},
 * {@link AgentArgs}): one line on stderr when the start returns to the JVM, and one more for each
 * phase that ends later on a thread of the agent's own (the drainer's warm-up, the JIT warm-up). By
 * default nothing is printed; the marks are a dozen {@link System#nanoTime()} reads.
 *
 * <p>Implementation notes: phases are marked by the start thread in order, so a phase's time is the
 * time since the previous mark; a background phase is marked with its own start time. Marks of
 * different threads are kept under this object's lock.
 */
final class StartPhases {
    private final long startNanos;
    private long lastNanos;
    private final List<String> phases = new ArrayList<>();
    private boolean enabled;

    StartPhases(long startNanos) {
        this.startNanos = startNanos;
        this.lastNanos = startNanos;
    }

    /** Whether {@link #report} prints; set once the agent's arguments are read. */
    synchronized void enable(boolean on) {
        enabled = on;
    }

    /** Ends the phase that began at the previous mark (or at the start) under {@code name}. */
    synchronized void mark(String name) {
        long now = System.nanoTime();
        phases.add(name + " " + millis(now - lastNanos));
        lastNanos = now;
    }

    /** Prints the phases marked so far, with the total since the start, and forgets them. */
    synchronized void report(String what) {
        String line = line(what, System.nanoTime());
        if (enabled && line != null) {
            AgentStarter.warn(line);
        }
        phases.clear();
    }

    /** {@code WHAT TOTAL ms (PHASE MS, …)} at {@code nowNanos}, or null when no phase was marked. */
    synchronized String line(String what, long nowNanos) {
        return phases.isEmpty() ? null
                : what + " " + millis(nowNanos - startNanos) + " ms (" + String.join(", ", phases) + ")";
    }

    static String millis(long nanos) {
        return Long.toString(Math.round(nanos / 1e6));
    }
}
