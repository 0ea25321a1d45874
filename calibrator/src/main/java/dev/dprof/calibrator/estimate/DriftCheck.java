package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Tests the drift assumption against the data over every stretch of {@value #ZEROS} consecutive
 * zeros, not pair by pair. Two causally valid zeros always admit a line, so a window of two can
 * never refute anything; three can: if the true conversion's curvature is at most {@code D}, the
 * chord through it at the ends {@code xs, xe} of the stretch's points satisfies every point
 * relaxed by {@code D/2·|x − xs|·|x − xe|} (the interpolation remainder, docs/BOUNDS.md "Drift"),
 * so an empty relaxed polygon proves that the assumption is false there.
 *
 * <p>A stretch's points are its zeros' (DProf Alg. 4) and the extra points (matched messages)
 * between its first {@code k1} and its last {@code k2 + 1}. Each point lies in at most
 * {@value #ZEROS} stretches, so the check costs O((zeros + points) × {@value #ZEROS}) small clips.
 *
 * <h2>Implementation notes</h2>
 * The relaxation is {@link Window#relax}, the feasibility test {@link FeasibleLines#of}: exact on
 * the original integers, so a reported contradiction is one the data really show.
 */
final class DriftCheck {
    /** Zeros per tested stretch: the fewest that can contradict a drift bound. */
    static final int ZEROS = 3;

    private DriftCheck() {
    }

    /**
     * A stretch whose data contradict the assumption.
     *
     * @param firstZero index (in k1 order) of its first zero
     * @param lastZero  index of its last zero
     * @param from      its first node tick (the first zero's {@code k1})
     * @param to        its last node tick (the last zero's {@code k2})
     */
    record Violation(int firstZero, int lastZero, long from, long to) {
    }

    /**
     * The stretches of {@code zeros} (sorted by {@code k1}) that contradict curvature {@code D};
     * empty when there are fewer than {@value #ZEROS} zeros or no curvature (the constant model
     * is checked by its single window).
     *
     * @param extra extra points, sorted by x
     */
    static List<Violation> violations(List<Zero> zeros, List<LinePoint> extra, double curvature) {
        List<Violation> found = new ArrayList<>();
        if (curvature <= 0) {
            return found;
        }
        for (int i = 0; i + ZEROS <= zeros.size(); i++) {
            if (!consistent(zeros, i, extra, curvature)) {
                Zero last = zeros.get(i + ZEROS - 1);
                found.add(new Violation(i, i + ZEROS - 1, zeros.get(i).k1(), last.k2()));
            }
        }
        return found;
    }

    /** Whether the stretch of {@value #ZEROS} zeros starting at {@code first} admits a chord under curvature {@code D}. */
    static boolean consistent(List<Zero> zeros, int first, List<LinePoint> extra, double curvature) {
        List<LinePoint> points = new ArrayList<>(2 * ZEROS);
        for (int k = first; k < first + ZEROS; k++) {
            for (LinePoint p : Constraints.of(zeros.get(k))) {
                points.add(p);
            }
        }
        long from = zeros.get(first).k1();
        long to = zeros.get(first + ZEROS - 1).k2();
        for (int k = firstAtLeast(extra, from); k < extra.size() && (extra.get(k).x() <= to || extra.get(k).x() - 1 == to); k++) {
            points.add(extra.get(k));
        }
        long xs = points.stream().mapToLong(LinePoint::x).min().orElse(from);
        long xe = points.stream().mapToLong(LinePoint::x).max().orElse(to);
        return FeasibleLines.of(PointHull.prune(Window.relax(points, curvature / 2, xs, xe))).isPresent();
    }

    /** Extra points in x order, as {@link #violations} wants them. */
    static List<LinePoint> sortedByX(List<LinePoint> extra) {
        List<LinePoint> sorted = new ArrayList<>(extra);
        sorted.sort(Comparator.comparingLong(LinePoint::x));
        return sorted;
    }

    /** The first index of {@code sorted} (ascending x) with {@code x ≥ x}, or its size. */
    static int firstAtLeast(List<LinePoint> sorted, long x) {
        int lo = 0;
        int hi = sorted.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted.get(mid).x() < x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
