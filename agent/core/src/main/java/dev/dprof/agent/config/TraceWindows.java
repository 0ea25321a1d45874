package dev.dprof.agent.config;

/**
 * Trace windows of statistics mode ({@code traceWindows: {every: 10m, length: 10s}}): every {@code everyMs}
 * the agent writes the events as well, for {@code lengthMs}, from the first pass of its drainer on, so
 * that a week of statistics comes with short traces to look into. A "trace window" is this; "window"
 * alone is a time range of a profile.
 */
public record TraceWindows(long everyMs, long lengthMs) {
    public TraceWindows {
        if (lengthMs <= 0 || everyMs <= lengthMs) {
            throw new IllegalArgumentException("trace windows need 0 < length < every: " + lengthMs + " ms every "
                    + everyMs + " ms");
        }
    }
}
