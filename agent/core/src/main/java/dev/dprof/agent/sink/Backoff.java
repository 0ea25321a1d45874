package dev.dprof.agent.sink;

/**
 * How long the drainer waits between two passes over the rings. While events come it polls every
 * drain interval, the bound documented for {@code kill -9}. Once {@link #POLLS_BEFORE_SLEEP} passes
 * in a row found every ring empty, it may instead sleep until the next event wakes it (see
 * {@code Rings.awaitEvent}); that sleep ends anyway after {@link #FIRST_SLEEP_NANOS}, doubled for
 * every further empty pass, at most {@link #MAX_SLEEP_NANOS}, so that ended threads are still
 * released without a wake-up. The growth only decides how often an idle process is looked at without
 * cause; it
 * never delays an event, since every event wakes a sleeping drainer.
 *
 * <p>Why sleep after a single empty pass: a timed wake-up of the drainer costs about 30 µs of CPU on
 * a virtual machine (the timer, the context switch, and the application thread it displaces), so
 * the drainer of a K-Means worker, whose events come in bursts at iteration boundaries, woke about
 * 950 times in a run while it polled four times before sleeping, and about 180 times with one.
 * Falling asleep costs a {@code membarrier} (a fence on every CPU running the process) and the
 * event that ends the sleep costs its thread a {@code futex} wake; for events spread evenly a few
 * intervals apart the two ways cost about the same, for bursts sleeping at once is far cheaper.
 */
final class Backoff {
    static final int POLLS_BEFORE_SLEEP = 1;
    /**
     * The first sleep's timeout. The timeout only bounds how late the drainer notices, unprompted,
     * that a thread ended (every event wakes it at once), so it starts long: starting at one
     * interval and doubling, a K-Means worker's drainer woke five times in each 150 ms compute
     * phase without cause.
     */
    static final long FIRST_SLEEP_NANOS = 100_000_000L;
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

    /** Whether the drainer may sleep until the next event: the last few passes found every ring empty. */
    boolean idle() {
        return emptyPasses >= POLLS_BEFORE_SLEEP;
    }

    /**
     * The next wait: one interval while events come; while idle {@link #FIRST_SLEEP_NANOS} (or the
     * interval, if that is longer) doubled for every empty pass beyond the first idle one, at most
     * {@link #MAX_SLEEP_NANOS} (or the interval, if that is longer).
     */
    long waitNanos() {
        if (!idle()) {
            return intervalNanos;
        }
        long wait = Math.max(intervalNanos, FIRST_SLEEP_NANOS);
        for (int k = POLLS_BEFORE_SLEEP; k < emptyPasses && wait < MAX_SLEEP_NANOS; k++) {
            wait *= 2;
        }
        return Math.max(intervalNanos, Math.min(wait, MAX_SLEEP_NANOS));
    }

    long intervalNanos() {
        return intervalNanos;
    }
}
