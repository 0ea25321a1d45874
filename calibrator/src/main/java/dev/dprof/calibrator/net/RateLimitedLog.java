package dev.dprof.calibrator.net;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A log that passes at most {@link #BURST} lines at once and one more every
 * {@link #REFILL_NANOS}, and drops the rest, counting them: a server's log lines are caused by
 * whoever can reach its port, so a flood of requests must not become a flood of lines (or of
 * disk writes). The next line that passes says how many were dropped before it.
 *
 * <h2>Implementation notes</h2>
 * A token bucket over {@link System#nanoTime}; synchronized, since a server's thread and its
 * shutdown may both log. Dropping costs no allocation beyond the caller's string, and none at all
 * through {@link #admit}.
 */
final class RateLimitedLog implements Consumer<String> {
    /** Lines that may pass back to back. */
    static final int BURST = 10;
    /** One more line may pass every second. */
    static final long REFILL_NANOS = 1_000_000_000L;

    private final Consumer<String> out;
    private final LongSupplier nanos;
    private long tokens = BURST;
    private long refilledAt;
    private long dropped;

    RateLimitedLog(Consumer<String> out) {
        this(out, System::nanoTime);
    }

    RateLimitedLog(Consumer<String> out, LongSupplier nanos) {
        this.out = out;
        this.nanos = nanos;
        this.refilledAt = nanos.getAsLong();
    }

    @Override
    public void accept(String line) {
        long droppedBefore = admit();
        if (droppedBefore >= 0) {
            emit(line, droppedBefore);
        }
    }

    /**
     * Takes a token for one line, so that a caller builds its line only when it passes (a line
     * dropped then costs no allocation at all).
     *
     * @return -1 if the line is to be dropped (counted), else how many were dropped before it, for
     *         {@link #emit}
     */
    synchronized long admit() {
        long now = nanos.getAsLong();
        long earned = (now - refilledAt) / REFILL_NANOS;
        if (earned > 0) {
            tokens = Math.min(BURST, tokens + earned);
            refilledAt += earned * REFILL_NANOS;
        }
        if (tokens == 0) {
            dropped++;
            return -1;
        }
        tokens--;
        long before = dropped;
        dropped = 0;
        return before;
    }

    /** Writes a line that {@link #admit} let pass, saying how many were dropped before it. */
    void emit(String line, long droppedBefore) {
        out.accept(droppedBefore == 0 ? line : line + " (" + droppedBefore + " earlier lines dropped: more than "
                + BURST + " at once, then one a second)");
    }

    /** Lines dropped since the last one that passed. */
    synchronized long dropped() {
        return dropped;
    }
}
