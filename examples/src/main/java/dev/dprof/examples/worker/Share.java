package dev.dprof.examples.worker;

import java.util.function.IntToLongFunction;

/** Splitting index ranges into parts: among ranks, among a rank's threads. */
public final class Share {
    private Share() {
    }

    /** {@code parts + 1} bounds splitting {@code [from, to)} into near-equal ranges. */
    public static int[] even(int from, int to, int parts) {
        int[] bounds = new int[parts + 1];
        for (int i = 0; i <= parts; i++) {
            bounds[i] = from + (int) ((long) (to - from) * i / parts);
        }
        return bounds;
    }

    /**
     * {@code parts + 1} bounds splitting {@code [from, to)} so that each range carries about the
     * same total weight: on a power-law graph equal vertex counts would give one rank the hubs.
     */
    public static int[] byWeight(int from, int to, int parts, IntToLongFunction weight) {
        long total = 0;
        for (int i = from; i < to; i++) {
            total += weight.applyAsLong(i);
        }
        int[] bounds = new int[parts + 1];
        bounds[0] = from;
        bounds[parts] = to;
        long sum = 0;
        int part = 1;
        for (int i = from; i < to && part < parts; i++) {
            sum += weight.applyAsLong(i);
            while (part < parts && sum * parts >= total * part) {
                bounds[part++] = i + 1;
            }
        }
        while (part < parts) {
            bounds[part++] = to;
        }
        return bounds;
    }
}
