package dev.dprof.consolidator.analysis.stats;

/**
 * A figure known only as an interval: the truth lies in {@code [lo, hi]}. In reference ticks,
 * each end rounded outward from its exact rational value; {@code hi} is
 * {@link Double#POSITIVE_INFINITY} when a process's rate has no bound (a contradicted
 * calibration).
 */
public record Bound(double lo, double hi) {
    public static final Bound ZERO = new Bound(0, 0);

    public boolean bounded() {
        return hi != Double.POSITIVE_INFINITY;
    }

    public boolean contains(double v) {
        return lo <= v && v <= hi;
    }
}
