package dev.dprof.calibrator.estimate;

import java.util.ArrayList;
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
        LinePoint[] sorted = points.toArray(new LinePoint[0]);
        sort(sorted, upperHull);
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

    private static final int INSERTION_SORT_LIMIT = 16;

    /**
     * Sorts by x and, at one x, the most constraining point first — the highest lower point, the
     * lowest upper point — since only that one matters there. A merge sort written out for
     * points: through a {@link java.util.Comparator} every comparison would be a call the JIT
     * cannot inline (the sort's call sites see every comparator of the program), and sorting the
     * thousands of points of matched messages per window was most of a window's cost.
     */
    static void sort(LinePoint[] points, boolean upperHull) {
        mergeSort(points.clone(), points, 0, points.length, upperHull);
    }

    /** Sorts {@code to[from, until)}, which {@code from[from, until)} holds too, using the latter as scratch. */
    private static void mergeSort(LinePoint[] scratch, LinePoint[] target, int from, int until, boolean upperHull) {
        if (until - from <= INSERTION_SORT_LIMIT) {
            for (int i = from + 1; i < until; i++) {
                LinePoint p = target[i];
                int j = i;
                for (; j > from && precedes(p, target[j - 1], upperHull); j--) {
                    target[j] = target[j - 1];
                }
                target[j] = p;
            }
            return;
        }
        int middle = (from + until) >>> 1;
        mergeSort(target, scratch, from, middle, upperHull);
        mergeSort(target, scratch, middle, until, upperHull);
        int left = from;
        int right = middle;
        for (int i = from; i < until; i++) {
            boolean takeLeft = right == until || (left < middle && !precedes(scratch[right], scratch[left], upperHull));
            target[i] = takeLeft ? scratch[left++] : scratch[right++];
        }
    }

    private static boolean precedes(LinePoint a, LinePoint b, boolean upperHull) {
        if (a.x() != b.x()) {
            return a.x() < b.x();
        }
        return upperHull ? a.y() > b.y() : a.y() < b.y();
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
