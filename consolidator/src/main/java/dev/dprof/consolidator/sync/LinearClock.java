package dev.dprof.consolidator.sync;

/**
 * A linear map from one clock's ticks to another's, {@code y = y0 + slope·(x − x0)}, centred on a
 * tick of the data so that doubles keep sub-tick precision over 2⁴⁷-tick readings.
 */
record LinearClock(long x0, double y0, double slope) {

    double apply(long x) {
        return y0 + slope * (x - x0);
    }

    /** This map followed by {@code then}: {@code then(this(x))}. */
    LinearClock andThen(LinearClock then) {
        return new LinearClock(x0, then.y0 + then.slope * (y0 - then.x0), slope * then.slope);
    }

    /** The least-squares line through points given as sums over {@code dx = x − x0}, {@code dy = y − y0}. */
    static LinearClock leastSquares(long x0, long y0, long n, double sx, double sy, double sxx, double sxy) {
        double mx = sx / n;
        double my = sy / n;
        double vxx = sxx / n - mx * mx;
        double slope = vxx > 0 ? (sxy / n - mx * my) / vxx : 1;
        // Recentred on the data's mean x, rounded to a tick: the line passes through (mean x, mean y).
        long cx = x0 + Math.round(mx);
        return new LinearClock(cx, y0 + my + slope * (cx - x0 - mx), slope);
    }
}
