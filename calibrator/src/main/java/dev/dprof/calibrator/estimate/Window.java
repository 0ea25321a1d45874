package dev.dprof.calibrator.estimate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * One stretch of a domain's timeline with its own feasible lines: the whole run under
 * {@link DriftModel.Constant}, the span between two neighbouring zeros under
 * {@link DriftModel.BoundedDrift}. Serves ticks in {@code [from, to)}.
 *
 * <p>With curvature bound {@code D}, the chord ℓ through the true conversion {@code c} at the
 * ends {@code xs, xe} of the window's points satisfies {@code |c(x) − ℓ(x)| ≤ D/2·|x−xs|·|x−xe|}
 * for every x where {@code D} bounds {@code |c''|}, inside the window or beyond it (docs/BOUNDS.md,
 * "Drift"). So ℓ satisfies every point relaxed by that slack, lies in the relaxed polygon, and
 * {@code c(x) ∈ [L(x) − slack(x), U(x) + slack(x)]}. The owner ({@link DomainConversion}) keeps
 * every x it asks about within the horizon where {@code D} holds.
 *
 * <h2>Implementation notes</h2>
 * Slack is computed in doubles, rounded up with a tick to spare; a slack of 2⁶² ticks or more is
 * {@link #NO_BOUND}, and a point that its slack would push beyond the range of a long is dropped
 * (fewer points can only widen the polygon, never make it wrong).
 */
final class Window {
    /** A slack too large to be added to a tick exactly: the tick gets no bound. */
    static final long NO_BOUND = Long.MAX_VALUE;
    private static final double SLACK_LIMIT = 0x1p62;

    final long from;
    final long to;
    private final long xs;
    private final long xe;
    private final double halfCurvature;
    final Optional<FeasibleLines> lines;
    final Envelope low;
    final Envelope high;
    /** Slack per bucket of the served range, each the maximum over its bucket; empty if unbounded or none. */
    private final long[] slackBuckets;
    private final int bucketShift;
    private final long bucketFrom;
    private final long bucketTo;

    Window(long from, long to, List<LinePoint> points, double curvature) {
        this.from = from;
        this.to = to;
        this.xs = points.stream().mapToLong(LinePoint::x).min().orElse(0);
        this.xe = points.stream().mapToLong(LinePoint::x).max().orElse(0);
        this.halfCurvature = curvature / 2;
        List<LinePoint> relaxed = PointHull.prune(relax(points, halfCurvature, xs, xe));
        this.lines = FeasibleLines.of(relaxed);
        long center = xs / 2 + xe / 2;
        this.low = lines.map(l -> Envelope.of(l, true, center)).orElse(null);
        this.high = lines.map(l -> Envelope.of(l, false, center)).orElse(null);
        // Buckets cover the served range, clipped to the points' extent where it is unbounded.
        bucketFrom = from == Long.MIN_VALUE ? xs : from;
        bucketTo = to == Long.MAX_VALUE ? (xe == Long.MAX_VALUE ? xe : xe + 1) : to;
        if (halfCurvature == 0 || bucketTo <= bucketFrom || bucketTo - bucketFrom < 0) {
            bucketShift = 0;
            slackBuckets = new long[0];
        } else {
            int shift = 0;
            while (((bucketTo - bucketFrom) >>> shift) > BUCKETS - 1) {
                shift++;
            }
            bucketShift = shift;
            slackBuckets = new long[(int) ((bucketTo - 1 - bucketFrom) >>> shift) + 1];
            double mid = (xs / 2.0) + (xe / 2.0);
            for (int b = 0; b < slackBuckets.length; b++) {
                long lo = bucketFrom + ((long) b << shift);
                long hi = Math.min(bucketTo - 1, lo + (1L << shift) - 1);
                long m = Math.max(slack(lo), slack(hi));
                if (mid >= lo && mid <= hi) {
                    m = Math.max(m, slack((long) mid));
                    m = Math.max(m, slack((long) mid + 1));
                }
                slackBuckets[b] = m;
            }
        }
    }

    private static final int BUCKETS = 16;

    /**
     * The points relaxed by the drift slack of a chord through {@code xs} and {@code xe}; a point
     * whose relaxed value leaves the range of a long is dropped (it no longer constrains anything
     * a long can express).
     */
    static List<LinePoint> relax(List<LinePoint> points, double halfCurvature, long xs, long xe) {
        List<LinePoint> all = new ArrayList<>(points.size());
        for (LinePoint p : points) {
            long s = slack(halfCurvature, p.x(), xs, xe);
            if (s == NO_BOUND) {
                continue;
            }
            try {
                all.add(p.relaxed(s));
            } catch (ArithmeticException beyond) {
                // dropped: see the javadoc
            }
        }
        return all;
    }

    /** The first x after {@code x} where {@link #slackFor} may change; MAX_VALUE if never. */
    long nextSlackChange(long x) {
        if (halfCurvature == 0) {
            return Long.MAX_VALUE;
        }
        if (slackBuckets.length > 0 && x >= bucketFrom && x < bucketTo) {
            return Math.min(bucketTo, bucketFrom + ((((x - bucketFrom) >>> bucketShift) + 1) << bucketShift));
        }
        if (outerBelow(x)) {
            return belowStart(x) + (1L << bucketShift); // ≤ bucketFrom: no overflow
        }
        if (outerAbove(x)) {
            long end = aboveEnd(x);
            return end == Long.MAX_VALUE ? end : end + 1;
        }
        return x == Long.MAX_VALUE ? x : x + 1;
    }

    /**
     * The drift widening for a tick served by this window: the bucket maximum inside the served
     * range (a table lookup instead of floating point per tick); beyond the window's points, the
     * value at the far end of the tick's bucket of the same width (the slack grows with the
     * distance from the points there, so that end is the bucket's maximum), which keeps runs of
     * ticks long where a window extrapolates — before the second zero, where the second window
     * narrows the first, after the last; {@link #NO_BOUND} when it is too large to add exactly.
     */
    long slackFor(long x) {
        if (halfCurvature == 0) {
            return 0;
        }
        if (slackBuckets.length > 0 && x >= bucketFrom && x < bucketTo) {
            return slackBuckets[(int) ((x - bucketFrom) >>> bucketShift)];
        }
        return slack(outerBelow(x) ? belowStart(x) : outerAbove(x) ? aboveEnd(x) : x);
    }

    /**
     * Whether x lies below the buckets and the window's first point, in an outer bucket: the
     * buckets continue below at the same width, aligned on {@code bucketFrom}. The slack falls as
     * x rises there, so a bucket's maximum is at its lower end ({@link #belowStart}). False where
     * that end would leave the range of a long: x then has a bucket of its own.
     */
    private boolean outerBelow(long x) {
        if (slackBuckets.length == 0 || x >= bucketFrom || bucketFrom > xs || bucketFrom - x <= 0) {
            return false;
        }
        long into = -(bucketFrom - x) & ((1L << bucketShift) - 1);
        return x - into <= x;
    }

    private long belowStart(long x) {
        return x - (-(bucketFrom - x) & ((1L << bucketShift) - 1));
    }

    /**
     * Whether x lies above the buckets and beyond the window's last point, in an outer bucket;
     * the slack grows with x there, so a bucket's maximum is at its upper end ({@link #aboveEnd}).
     */
    private boolean outerAbove(long x) {
        return slackBuckets.length > 0 && x >= bucketTo && bucketTo > xe && x - bucketTo >= 0;
    }

    /** The upper end of x's outer bucket above, or MAX_VALUE where it would leave the range. */
    private long aboveEnd(long x) {
        long start = x - ((x - bucketTo) & ((1L << bucketShift) - 1));
        long width = 1L << bucketShift;
        return start > Long.MAX_VALUE - (width - 1) ? Long.MAX_VALUE : start + (width - 1);
    }

    /**
     * Bounds on the slope {@code c'(x)} for every x in {@code [a, b]}, a part of what this window
     * serves: the feasible chord slopes widened by how far a derivative can stray from its chord.
     * The chord's slope is {@code c'(ξ)} for some ξ between {@code xs} and {@code xe} (mean value
     * theorem), so {@code |c'(x) − c'(ξ)| ≤ D·(max(x, xe) − min(x, xs))}: {@code D·(xe − xs)}
     * between the window's points, more for a tick beyond them — by its own distance.
     */
    BigFraction[] slopeBounds(long a, long b) {
        FeasibleLines l = lines.orElseThrow();
        if (halfCurvature == 0) {
            return new BigFraction[] {l.minFrequency(), l.maxFrequency()};
        }
        double reach = (double) Math.max(b, xe) - (double) Math.min(a, xs);
        double stray = 2 * halfCurvature * reach * (1 + 1e-9) + 1e-15;
        BigFraction s = BigFraction.from(stray);
        BigFraction lo = l.minFrequency().subtract(s);
        return new BigFraction[] {lo.signum() < 0 ? BigFraction.of(0) : lo, l.maxFrequency().add(s)};
    }

    boolean contradicted() {
        return lines.isEmpty();
    }

    /** The drift widening at x, rounded up, with a tick to spare for the double arithmetic. */
    long slack(long x) {
        return slack(halfCurvature, x, xs, xe);
    }

    /** {@code D/2·|x − xs|·|x − xe|} rounded up plus one tick, or {@link #NO_BOUND} from 2⁶² on. */
    static long slack(double halfCurvature, long x, long xs, long xe) {
        if (halfCurvature == 0) {
            return 0;
        }
        double s = halfCurvature * Math.abs((double) x - xs) * Math.abs((double) x - xe);
        return s >= SLACK_LIMIT || Double.isNaN(s) ? NO_BOUND : (long) Math.ceil(s) + 1;
    }
}
