package dev.dprof.agent.sink;

import java.util.function.LongSupplier;

/**
 * Measures a clock's nominal tick rate against {@link System#nanoTime()}. The result only turns
 * ticks into nanoseconds for people to read; it is never part of a bound, so a rate measured over
 * a few milliseconds is good enough.
 */
final class TickRate {
    private TickRate() {
    }

    static double measure(LongSupplier clock, long windowMillis) throws InterruptedException {
        long n0 = System.nanoTime();
        long k0 = clock.getAsLong();
        Thread.sleep(windowMillis);
        long k1 = clock.getAsLong();
        long n1 = System.nanoTime();
        return (k1 - k0) * 1e9 / (n1 - n0);
    }
}
