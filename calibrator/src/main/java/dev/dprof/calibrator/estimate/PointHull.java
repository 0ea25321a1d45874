package dev.dprof.calibrator.estimate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Drops points that cannot matter before the exact polygon is built: a line below every upper
 * point needs only to be below the lower convex hull of those points, and a line above every
 * lower point only above their upper hull. A point strictly inside is implied by two hull
 * vertices around it, so the feasible set is unchanged. Thousands of matched messages shrink to
 * a handful of points this way (Andrew's monotone chain, exact 128-bit cross products).
 */
final class PointHull {
    private PointHull() {
    }

    static List<LinePoint> prune(List<LinePoint> points) {
        List<LinePoint> lower = new ArrayList<>();
        List<LinePoint> upper = new ArrayList<>();
        for (LinePoint p : points) {
            (p.lower() ? lower : upper).add(p);
        }
        List<LinePoint> out = new ArrayList<>(chain(lower, true));
        out.addAll(chain(upper, false));
        return out;
    }

    /** The upper hull of lower points ({@code upperHull}) or the lower hull of upper points. */
    private static List<LinePoint> chain(List<LinePoint> points, boolean upperHull) {
        if (points.size() <= 2) {
            return points;
        }
        List<LinePoint> sorted = new ArrayList<>(points);
        // At one x only the most constraining point matters: the highest lower point, the lowest upper point.
        sorted.sort(Comparator.comparingLong(LinePoint::x)
                .thenComparing(upperHull ? Comparator.comparingLong(LinePoint::y).reversed()
                        : Comparator.comparingLong(LinePoint::y)));
        List<LinePoint> hull = new ArrayList<>();
        for (LinePoint p : sorted) {
            if (!hull.isEmpty() && hull.get(hull.size() - 1).x() == p.x()) {
                continue;
            }
            while (hull.size() >= 2) {
                int turn = cross(hull.get(hull.size() - 2), hull.get(hull.size() - 1), p);
                // Upper hull keeps right turns (cross < 0); lower hull keeps left turns (cross > 0).
                if (upperHull ? turn >= 0 : turn <= 0) {
                    hull.remove(hull.size() - 1);
                } else {
                    break;
                }
            }
            hull.add(p);
        }
        return hull;
    }

    /** The sign of {@code (b−o)×(c−o)}: positive for a left turn. */
    static int cross(LinePoint o, LinePoint b, LinePoint c) {
        return compareProducts(b.x() - o.x(), c.y() - o.y(), b.y() - o.y(), c.x() - o.x());
    }

    /** {@code sign(a·b − c·d)} without overflow, from the 128-bit products. */
    static int compareProducts(long a, long b, long c, long d) {
        long h1 = Math.multiplyHigh(a, b);
        long h2 = Math.multiplyHigh(c, d);
        if (h1 != h2) {
            return h1 < h2 ? -1 : 1;
        }
        return Long.compareUnsigned(a * b, c * d);
    }
}
