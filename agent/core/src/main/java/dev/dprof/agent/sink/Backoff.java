package dev.dprof.agent.sink;

/**
 * How long the drainer waits between two passes over the rings. After a pass that wrote events
 * it polls again after one drain interval, the bound documented for {@code kill -9}. After a pass
 * that found every ring empty it may instead sleep until the next event wakes it (see
 * {@code Rings.awaitEvent}); that sleep ends anyway after {@code interval × 2^(k−1)} for the
 * {@code k}-th empty pass in a row, at most {@link #MAX_SLEEP_NANOS}, so that ended threads are
 * still released and the drainer stays alive without a wake-up. The growth only decides how often
 * an idle process is looked at without cause; it never delays an event, since every event wakes
 * a sleeping drainer.
 */
final class Backoff {
    static final long MAX_SLEEP_NANOS = 1_000_000_000L;

    private final long intervalNanos;
    private int emptyPasses;

    Backoff(long intervalNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + intervalNanos);
        }
        this.intervalNanos = intervalNanos;
    }

    /** Records a pass over the rings; {@code wroteEvents} whether it found any. */
    void pass(boolean wroteEvents) {
        emptyPasses = wroteEvents ? 0 : emptyPasses + 1;
    }

    /** Whether the drainer may sleep until the next event: the last pass found every ring empty. */
    boolean idle() {
        return emptyPasses > 0;
    }

    /**
     * The next wait: one interval after a pass that wrote events and after the first empty one,
     * then doubled per further empty pass, at most {@link #MAX_SLEEP_NANOS} (or the interval, if
     * that is longer).
     */
    long waitNanos() {
        long wait = intervalNanos;
        for (int k = 1; k < emptyPasses && wait < MAX_SLEEP_NANOS; k++) {
            wait *= 2;
        }
        return Math.max(intervalNanos, Math.min(wait, MAX_SLEEP_NANOS));
    }

    long intervalNanos() {
        return intervalNanos;
    }
}
