package dev.dprof.agent.stats;

import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.TraceWindow;
import java.util.function.LongSupplier;

/**
 * When statistics mode writes what (docs/CONFIG.md, "Statistics mode", "Trace windows"): the aggregator's
 * interval records, after the pass that crossed the interval's end, and the trace windows, during which the
 * drainer writes the batches too, each opened before a pass and closed, with a {@link TraceWindow} record,
 * after the pass that crossed its end. The drainer asks it before and after each pass; it says how long
 * the drainer may wait until something is due. Independent of where the drainer runs.
 *
 * <h2>Implementation notes</h2>
 * One thread (the drainer's) uses an instance; nothing here allocates after {@link #start}.
 */
public final class StatisticsMode {
    private final long intervalNanos;
    private final boolean alwaysTraced;
    private long windowEveryNanos;
    private long windowLengthNanos;
    private StatisticsAggregator aggregator;
    private long nextFlushNanos;
    private long windowsStartNanos;
    private boolean windowOpen;
    private long windowOpenTick;

    /** @param alsoTrace whether every batch is written too (the tests' {@code alsoTrace}) */
    public StatisticsMode(int intervalMs, boolean alsoTrace) {
        if (intervalMs <= 0) {
            throw new IllegalArgumentException("statistics interval must be positive: " + intervalMs);
        }
        intervalNanos = intervalMs * 1_000_000L;
        alwaysTraced = alsoTrace;
    }

    /** Trace windows of {@code lengthMs} every {@code everyMs}, the first opening at {@link #start}. */
    public void traceWindows(long everyMs, long lengthMs) {
        if (lengthMs <= 0 || everyMs <= lengthMs) {
            throw new IllegalArgumentException("trace windows need 0 < length < every: " + lengthMs + ", " + everyMs);
        }
        windowEveryNanos = everyMs * 1_000_000L;
        windowLengthNanos = lengthMs * 1_000_000L;
    }

    /** A new aggregator for these settings (the drainer's warm-up has one of its own). */
    public static StatisticsAggregator aggregator(long costX1024, SimulatedClock simulated) {
        return new StatisticsAggregator(costX1024, simulated);
    }

    /** Starts the first interval and trace window at {@code nowNanos}; returns the run's aggregator. */
    public StatisticsAggregator start(long costX1024, SimulatedClock simulated, long nowNanos) {
        aggregator = aggregator(costX1024, simulated);
        nextFlushNanos = nowNanos + intervalNanos;
        windowsStartNanos = nowNanos;
        return aggregator;
    }

    /** Whether the drainer writes batches now. */
    public boolean traced() {
        return alwaysTraced || windowOpen;
    }

    /** Before a pass: opens a trace window that is due, so that the pass writes its batches. */
    public void beforePass(long nowNanos, LongSupplier tick) {
        if (windowEveryNanos > 0 && !windowOpen && phase(nowNanos) < windowLengthNanos) {
            windowOpen = true;
            windowOpenTick = tick.getAsLong();
        }
    }

    /**
     * After a pass: writes the interval's records if it is over, closes a trace window that is over;
     * returns the nanoseconds until the next of these is due.
     */
    public long afterPass(RecordOut out, long nowNanos, LongSupplier tick, long lostSoFar) {
        if (nowNanos - nextFlushNanos >= 0) {
            aggregator.flush(out, tick.getAsLong(), lostSoFar);
            // A late pass (a loaded machine) starts the next interval from now, not in the past.
            nextFlushNanos = Math.max(nextFlushNanos + intervalNanos, nowNanos + intervalNanos / 2);
        }
        long wait = nextFlushNanos - nowNanos;
        if (windowEveryNanos > 0) {
            long phase = phase(nowNanos);
            if (windowOpen && phase >= windowLengthNanos) {
                closeWindow(out, tick.getAsLong());
            }
            wait = Math.min(wait, phase < windowLengthNanos ? windowLengthNanos - phase : windowEveryNanos - phase);
        }
        return Math.max(0, wait);
    }

    /** After the last pass: the last interval's records, and the end of an open trace window. */
    public void finish(RecordOut out, long tick, long lostSoFar) {
        aggregator.flush(out, tick, lostSoFar);
        if (windowOpen) {
            closeWindow(out, tick);
        }
    }

    private long phase(long nowNanos) {
        return Math.floorMod(nowNanos - windowsStartNanos, windowEveryNanos);
    }

    private void closeWindow(RecordOut out, long tick) {
        TraceWindow.encode(out.start(), windowOpenTick, Math.max(tick, windowOpenTick));
        out.append();
        windowOpen = false;
    }
}
