package dev.dprof.examples.worker;

import java.util.List;
import java.util.Locale;

/**
 * What a worker prints at the end: a few summary lines, its laps and the CPU and compilation time
 * its process spent in the span (see {@link SpanClock}), then its iteration span.
 */
public record Outcome(String app, int rank, List<String> summary, Span span) {
    /**
     * The line before the span line — CPU and compilation seconds in the span — or null where the
     * CPU time is unknown; {@code dprof bench overhead} reads it.
     */
    public String cpuLine() {
        return Double.isNaN(span.cpuSeconds()) ? null
                : String.format(Locale.ROOT, "%s: rank %d cpu %.3f s jit %.3f s", app, rank, span.cpuSeconds(),
                        span.jitSeconds());
    }

    /** The milliseconds of each lap (iteration), or null where the program marks none; {@code dprof bench overhead} reads it. */
    public String lapsLine() {
        if (span.lapSeconds().isEmpty()) {
            return null;
        }
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s: rank %d laps ms", app, rank));
        for (double lap : span.lapSeconds()) {
            line.append(String.format(Locale.ROOT, " %.3f", lap * 1e3));
        }
        return line.toString();
    }

    /** The last line of every worker's output; {@code dev.dprof.examples.Cluster} parses it. */
    public String spanLine() {
        return String.format(Locale.ROOT, "%s: rank %d span %.3f s", app, rank, span.seconds());
    }
}
