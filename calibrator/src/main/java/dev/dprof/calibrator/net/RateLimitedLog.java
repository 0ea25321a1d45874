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
 * shutdown may both log. Dropping costs no allocation beyond the caller's string.
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
    public synchronized void accept(String line) {
        long now = nanos.getAsLong();
        long earned = (now - refilledAt) / REFILL_NANOS;
        if (earned > 0) {
            tokens = Math.min(BURST, tokens + earned);
            refilledAt += earned * REFILL_NANOS;
        }
        if (tokens == 0) {
            dropped++;
            return;
        }
        tokens--;
        if (dropped > 0) {
            out.accept(line + " (" + dropped + " earlier lines dropped: more than " + BURST + " at once, "
                    + "then one a second)");
            dropped = 0;
        } else {
            out.accept(line);
        }
    }

    /** Lines dropped since the last one that passed. */
    synchronized long dropped() {
        return dropped;
    }
}
