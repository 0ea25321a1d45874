package dev.dprof.agent.sink;

import java.util.function.LongSupplier;

/**
 * Measures a clock's nominal tick rate against {@link System#nanoTime()}. The result only turns
 * ticks into nanoseconds for people to read; it is never part of a bound, so a rate measured over
 * a few milliseconds is good enough — provided each end of the window pairs a tick with the
 * nanoTime of the same moment. A thread preempted between the two reads on a busy machine would
 * skew a 10 ms window by the length of the preemption, easily tens of percent, so each end is
 * the tightest of a few bracketed reads.
 */
final class TickRate {
    private static final int TRIES = 8;

    private TickRate() {
    }

    static double measure(LongSupplier clock, long windowMillis) throws InterruptedException {
        long[] start = pair(clock);
        Thread.sleep(windowMillis);
        long[] end = pair(clock);
        return (end[0] - start[0]) * 1e9 / (end[1] - start[1]);
    }

    /** A tick and the nanoTime midpoint of the tightest of {@link #TRIES} reads bracketing it. */
    private static long[] pair(LongSupplier clock) {
        long[] best = null;
        long bestWidth = Long.MAX_VALUE;
        for (int i = 0; i < TRIES; i++) {
            long n0 = System.nanoTime();
            long tick = clock.getAsLong();
            long n1 = System.nanoTime();
            if (n1 - n0 < bestWidth) {
                bestWidth = n1 - n0;
                best = new long[] {tick, n0 + (n1 - n0) / 2};
            }
        }
        return best;
    }
}
