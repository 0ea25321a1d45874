package dev.dprof.consolidator.analysis.stats;

/**
 * The same figures computed from the events' truth (simulated clocks only): reference ticks at
 * the real moments of the events, so what the bounds must contain.
 */
public record TruthDurations(long count, long total, double mean, long min, long max) {
}
