package dev.dprof.calibrator.estimate;

/**
 * One linear constraint on the unknown line {@code c(x) = α + F·x} that maps a node's continuous
 * clock {@code x} to its parent's: {@code c(x) ≥ y} for a lower point, {@code c(x) ≤ y} for an
 * upper point. Zeros and matched messages both reduce to such points (see {@link Constraints}).
 */
public record LinePoint(long x, long y, boolean lower) {

    public static LinePoint lower(long x, long y) {
        return new LinePoint(x, y, true);
    }

    public static LinePoint upper(long x, long y) {
        return new LinePoint(x, y, false);
    }

    /**
     * This point moved outward by {@code slack} ticks: the relaxation a drift assumption allows.
     *
     * @throws ArithmeticException if the moved value leaves the range of a long
     */
    LinePoint relaxed(long slack) {
        return new LinePoint(x, lower ? Math.subtractExact(y, slack) : Math.addExact(y, slack), lower);
    }
}
