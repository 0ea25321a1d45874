package dev.dprof.consolidator.analysis.stats;

/**
 * Count, total, mean, minimum and maximum of a set of durations, each known as a {@link Bound} in
 * reference ticks. {@code min} bounds the smallest true duration ({@code [min lo_i, min hi_i]}),
 * {@code max} the largest ({@code [max lo_i, max hi_i]}); with no durations every figure is 0.
 */
public record Durations(long count, Bound total, Bound mean, Bound min, Bound max) {
    public static final Durations NONE = new Durations(0, Bound.ZERO, Bound.ZERO, Bound.ZERO, Bound.ZERO);
}
