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
 * for every x, inside the window or beyond it. So ℓ satisfies every point relaxed by that slack,
 * lies in the relaxed polygon, and {@code c(x) ∈ [L(x) − slack(x), U(x) + slack(x)]}.
 */
final class Window {
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
        List<LinePoint> all = new ArrayList<>(points.size());
        for (LinePoint p : points) {
            all.add(p.relaxed(slack(p.x())));
        }
        List<LinePoint> relaxed = PointHull.prune(all);
        this.lines = FeasibleLines.of(relaxed);
        long center = xs / 2 + xe / 2;
        this.low = lines.map(l -> Envelope.of(l, true, center)).orElse(null);
        this.high = lines.map(l -> Envelope.of(l, false, center)).orElse(null);
        // Buckets cover the served range, clipped to the points' extent where it is unbounded.
        bucketFrom = from == Long.MIN_VALUE ? xs : from;
        bucketTo = to == Long.MAX_VALUE ? xe + 1 : to;
        if (halfCurvature == 0 || bucketTo <= bucketFrom) {
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

    /** The first x after {@code x} where {@link #slackFor} may change; MAX_VALUE if never. */
    long nextSlackChange(long x) {
        if (halfCurvature == 0) {
            return Long.MAX_VALUE;
        }
        if (slackBuckets.length > 0 && x >= bucketFrom && x < bucketTo) {
            return Math.min(bucketTo, bucketFrom + ((((x - bucketFrom) >>> bucketShift) + 1) << bucketShift));
        }
        return x + 1;
    }

    /**
     * The drift widening for a tick served by this window: the bucket maximum inside the served
     * range (a table lookup instead of floating point per tick), the exact value beyond it.
     */
    long slackFor(long x) {
        if (halfCurvature == 0) {
            return 0;
        }
        if (slackBuckets.length > 0 && x >= bucketFrom && x < bucketTo) {
            return slackBuckets[(int) ((x - bucketFrom) >>> bucketShift)];
        }
        return slack(x);
    }

    /**
     * Bounds on the slope {@code c'(x)} anywhere this window serves: the feasible chord slopes,
     * widened by how far a derivative can stray from its chord, {@code D·(xe − xs)}.
     */
    BigFraction[] slopeBounds() {
        FeasibleLines l = lines.orElseThrow();
        if (halfCurvature == 0) {
            return new BigFraction[] {l.minFrequency(), l.maxFrequency()};
        }
        double stray = 2 * halfCurvature * ((double) xe - xs) * (1 + 1e-9) + 1e-15;
        BigFraction s = BigFraction.from(stray);
        BigFraction lo = l.minFrequency().subtract(s);
        return new BigFraction[] {lo.signum() < 0 ? BigFraction.of(0) : lo, l.maxFrequency().add(s)};
    }

    boolean contradicted() {
        return lines.isEmpty();
    }

    /** The drift widening at x, rounded up, with a tick to spare for the double arithmetic. */
    long slack(long x) {
        if (halfCurvature == 0) {
            return 0;
        }
        double s = halfCurvature * Math.abs((double) x - xs) * Math.abs((double) x - xe);
        return s >= 1e18 ? Long.MAX_VALUE / 4 : (long) Math.ceil(s) + 1;
    }
}
