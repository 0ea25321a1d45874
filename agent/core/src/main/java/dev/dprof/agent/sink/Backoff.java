package dev.dprof.agent.sink;

/**
 * When the drainer passes over the rings. Every pass is followed by one drain interval of waiting,
 * the bound documented for {@code kill -9}; before that wait, unless events are streaming in, the
 * drainer may first sleep until a probe records the next event (see {@code Rings.awaitEvent}).
 * So a burst of events costs one pass: its first event wakes the drainer, which waits the interval
 * for the rest of the burst and then writes all of it; every event is still on disk one interval
 * after it was recorded (plus the time the drainer waits for a CPU).
 *
 * <p>The sleep ends anyway after {@link #FIRST_SLEEP_NANOS}, doubled for every empty pass in a row,
 * at most {@link #MAX_SLEEP_NANOS}, so that ended threads are still released without a wake-up.
 * The growth only decides how often an idle process is looked at without cause; it never delays an
 * event, since every event wakes a sleeping drainer.
 *
 * <p>Why wait out the interval after the wake, and not drain at once: a drainer pass costs its
 * process 20–60 µs of CPU on a virtual machine, most of it in caches the application has just
 * evicted, and each wake-up about as much again (the timer, the context switch, the application
 * thread it displaces). A K-Means worker's events come in bursts of several threads' events a few
 * ms apart at every iteration boundary; draining at the wake and polling until a pass found nothing
 * took about 100 passes and 100 wake-ups per run and process, waiting first about 40 of each
 * (BENCHMARKS.md, "Session 5").
 *
 * <p>Why not sleep while events stream in: falling asleep costs a {@code membarrier} (a fence on
 * every CPU running the process). A sleep that is refused because events are already pending marks
 * a stream; then the drainer polls every interval, as long as passes find events.
 */
final class Backoff {
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
    private boolean streaming;

    Backoff(long intervalNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + intervalNanos);
        }
        this.intervalNanos = intervalNanos;
    }

    /** Records a pass over the rings; {@code wroteEvents} whether it found any. An empty pass ends a stream. */
    void pass(boolean wroteEvents) {
        if (wroteEvents) {
            emptyPasses = 0;
        } else {
            emptyPasses++;
            streaming = false;
        }
    }

    /** Whether the drainer should try to sleep until the next event before its interval: not while events stream in. */
    boolean maySleep() {
        return !streaming;
    }

    /** The sleep was refused (events were pending, or sleeping is not possible here): poll until a pass finds nothing. */
    void sleepRefused() {
        streaming = true;
    }

    /**
     * The sleep's timeout: {@link #FIRST_SLEEP_NANOS} (or the interval, if that is longer) doubled for
     * every empty pass in a row, at most {@link #MAX_SLEEP_NANOS} (or the interval, if that is longer).
     */
    long sleepNanos() {
        long wait = Math.max(intervalNanos, FIRST_SLEEP_NANOS);
        for (int k = 0; k < emptyPasses && wait < MAX_SLEEP_NANOS; k++) {
            wait *= 2;
        }
        return Math.max(intervalNanos, Math.min(wait, MAX_SLEEP_NANOS));
    }

    long intervalNanos() {
        return intervalNanos;
    }
}
