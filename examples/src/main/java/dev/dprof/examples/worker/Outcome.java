package dev.dprof.examples.worker;

import java.util.List;
import java.util.Locale;

/** What a worker prints at the end: a few summary lines, then its iteration span. */
public record Outcome(String app, int rank, List<String> summary, double spanSeconds) {
    /** The last line of every worker's output; {@code dev.dprof.examples.Cluster} parses it. */
    public String spanLine() {
        return String.format(Locale.ROOT, "%s: rank %d span %.3f s", app, rank, spanSeconds);
    }

    /** Seconds between two {@code System.nanoTime} readings. */
    public static double seconds(long startNanos, long endNanos) {
        return (endNanos - startNanos) / 1e9;
    }
}
