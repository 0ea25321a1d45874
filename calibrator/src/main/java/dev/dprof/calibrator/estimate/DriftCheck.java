package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Tests the drift assumption against the data over every stretch of {@value #ZEROS} to
 * {@value #LONGEST} consecutive zeros, not pair by pair. Two causally valid zeros always admit a
 * line, so a window of two can never refute anything; three can: if the true conversion's
 * curvature is at most {@code D}, the chord through it at the ends {@code xs, xe} of the
 * stretch's points satisfies every point relaxed by {@code D/2·|x − xs|·|x − xe|} (the
 * interpolation remainder, docs/BOUNDS.md "Drift"), so an empty relaxed polygon proves that the
 * assumption is false there.
 *
 * <p>Longer stretches see what every stretch of three lets through: each of those bounds only
 * the bend at its middle zero, so a wander may put a bend within the zeros' widths at every zero
 * and still leave no line, and no curve within the bound, through five of them (the test bed's
 * 314 ppm/s wander sampled by five zeros 1–5 s apart: every three fit, all five do not, and the
 * bounds of the windows between them missed 9 441 of 16 480 ticks). The relaxation grows with the
 * square of a stretch's length, so beyond a few zeros a longer one adds nothing; {@value
 * #LONGEST} is that cut.
 *
 * <p>A stretch of three holds its zeros' points (DProf Alg. 4) and the extra points (matched
 * messages) between its first {@code k1} and its last {@code k2 + 1}; a longer one holds its
 * zeros' points only (fewer points can only make the test weaker, never wrong), so a matched
 * message lies in at most {@value #ZEROS} tested stretches and the check costs
 * O(points × {@value #ZEROS} + zeros × {@value #LONGEST}²) in small clips.
 *
 * <h2>Implementation notes</h2>
 * The relaxation is {@link Window#relax}, the feasibility test {@link FeasibleLines#of}: exact on
 * the original integers, so a reported contradiction is one the data really show.
 */
final class DriftCheck {
    /** Zeros in the shortest tested stretch: the fewest that can contradict a drift bound. */
    static final int ZEROS = 3;
    /** Zeros in the longest tested stretch. */
    static final int LONGEST = 8;

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
            for (int last = i + ZEROS - 1; last < Math.min(zeros.size(), i + LONGEST); last++) {
                if (!consistent(zeros, i, last, extra, curvature)) {
                    found.add(new Violation(i, last, zeros.get(i).k1(), zeros.get(last).k2()));
                }
            }
        }
        return found;
    }

    /** How many stretches {@link #violations} tests among {@code n} zeros. */
    static int stretchCount(int n) {
        int count = 0;
        for (int i = 0; i + ZEROS <= n; i++) {
            count += Math.min(n, i + LONGEST) - (i + ZEROS - 1);
        }
        return count;
    }

    /**
     * Whether every tested stretch that holds zero {@code index} admits a chord under curvature
     * {@code D}.
     */
    static boolean consistentAround(List<Zero> zeros, int index, List<LinePoint> extra, double curvature) {
        for (int first = Math.max(0, index - LONGEST + 1); first <= index; first++) {
            for (int last = Math.max(index, first + ZEROS - 1); last < Math.min(zeros.size(), first + LONGEST); last++) {
                if (!consistent(zeros, first, last, extra, curvature)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Whether the stretch of zeros {@code first..last} admits a chord under curvature {@code D};
     * the extra points between them take part in a stretch of {@value #ZEROS} only.
     */
    static boolean consistent(List<Zero> zeros, int first, int last, List<LinePoint> extra, double curvature) {
        List<LinePoint> points = new ArrayList<>(2 * (last - first + 1));
        for (int k = first; k <= last; k++) {
            for (LinePoint p : Constraints.of(zeros.get(k))) {
                points.add(p);
            }
        }
        long from = zeros.get(first).k1();
        long to = zeros.get(last).k2();
        if (last - first + 1 == ZEROS) {
            for (int k = firstAtLeast(extra, from); k < extra.size() && (extra.get(k).x() <= to || extra.get(k).x() - 1 == to); k++) {
                points.add(extra.get(k));
            }
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
