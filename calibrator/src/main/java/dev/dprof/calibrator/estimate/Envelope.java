package dev.dprof.calibrator.estimate;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * The lower (or upper) envelope of the feasible lines — {@code L(x) = min α + F·x} or
 * {@code U(x) = max α + F·x} over the polygon's vertices — prepared for fast, sound evaluation.
 *
 * <p>{@code L} is concave and piecewise linear; each piece is one vertex's line, and the piece
 * that attains the minimum moves monotonically with {@code x}. So a caller converting sorted
 * ticks keeps the index of the current piece and advances it: O(1) amortized per tick
 * (DESIGN.md "a sweep gives O(1) per timestamp").
 *
 * <h2>Implementation notes: directed rounding</h2>
 * Each piece is held as an integer anchor {@code X}, the value there rounded outward
 * ({@code floor} for the lower envelope, {@code ceil} for the upper), and the slope {@code F} as
 * Q64.64 fixed point rounded both ways. For {@code d = x − X} the lower bound is
 * {@code floor(Y) + floor(d·F↓)} when {@code d ≥ 0} and {@code floor(Y) + floor(d·F↑)} when
 * {@code d < 0} — each term at most its exact value, so the sum is at most {@code L(x)}
 * (the paper's §4.3 formula uses the lower frequency on both sides of the zero, which is wrong
 * for {@code d < 0}). The upper bound mirrors it with ceilings. The 128-bit products use
 * {@link Math#multiplyHigh}; the rounding error is at most {@code |d|/2⁶⁴} plus one tick.
 * Switching thresholds are {@code floor(breakpoint) + 1}: below them the left piece is the
 * (possibly tied) optimum, so evaluating it is exact, never an over-estimate.
 */
final class Envelope {
    private final boolean lower;
    /** {@code start[p]}: the smallest x for which piece p is used; start[0] = MIN_VALUE. */
    private final long[] start;
    private final long[] anchor;
    private final long[] value;
    private final long[] slopeDownInt;
    private final long[] slopeDownFrac;
    private final long[] slopeUpInt;
    private final long[] slopeUpFrac;
    /** Whether piece p's anchor value fits a long; a piece whose value does not gives no bound. */
    private final boolean[] exact;

    private Envelope(boolean lower, int n) {
        exact = new boolean[n];
        this.lower = lower;
        start = new long[n];
        anchor = new long[n];
        value = new long[n];
        slopeDownInt = new long[n];
        slopeDownFrac = new long[n];
        slopeUpInt = new long[n];
        slopeUpFrac = new long[n];
    }

    /**
     * The lower ({@code lower}) or upper envelope of the lines. Each piece is anchored on a point
     * its line passes through exactly (every vertex lies on constraint lines, whose points are
     * integers): the one nearest {@code center} within the piece, the earliest in the points'
     * order on a tie, so only the slope is rounded; lines of the box alone are anchored near
     * {@code center}.
     *
     * <p>Two neighbouring pieces are vertices joined by an edge of the polygon, so their lines
     * cross at the point of that edge: breakpoints and the test that drops a line are then
     * integer, and only pieces without a common point fall back to exact rationals.
     */
    static Envelope of(FeasibleLines lines, boolean lower, long center) {
        List<PolygonVertex> polygon = lines.vertices();
        int n = polygon.size();
        List<PolygonVertex> sorted = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            PolygonVertex previous = polygon.get(i == 0 ? n - 1 : i - 1);
            PolygonVertex next = polygon.get(i + 1 == n ? 0 : i + 1);
            if (n <= 2 || mayBePiece(previous, polygon.get(i), next, lower)) {
                sorted.add(polygon.get(i));
            }
        }
        // Min envelope: slopes descending along increasing x; max envelope: ascending.
        sorted.sort(lower ? Envelope::lowerOrder : Envelope::upperOrder);
        List<PolygonVertex> hull = new ArrayList<>();
        List<Crossing> breaks = new ArrayList<>();
        for (PolygonVertex v : sorted) {
            if (!hull.isEmpty() && hull.get(hull.size() - 1).compareSlope(v) == 0) {
                continue; // same slope: the first kept is the better intercept
            }
            // The last line is never optimal if v overtakes it before it overtook its predecessor.
            while (hull.size() >= 2 && overtakesBy(hull.get(hull.size() - 1), v, breaks.get(breaks.size() - 1), lower)) {
                hull.remove(hull.size() - 1);
                breaks.remove(breaks.size() - 1);
            }
            if (!hull.isEmpty()) {
                breaks.add(Crossing.of(hull.get(hull.size() - 1), v));
            }
            hull.add(v);
        }
        Envelope e = new Envelope(lower, hull.size());
        for (int p = 0; p < hull.size(); p++) {
            e.start[p] = p == 0 ? Long.MIN_VALUE : Math.min(breaks.get(p - 1).floor(), Long.MAX_VALUE - 1) + 1;
            long from = p == 0 ? Long.MIN_VALUE : e.start[p];
            long to = p == hull.size() - 1 ? Long.MAX_VALUE : breaks.get(p).floor();
            e.set(p, hull.get(p), Math.max(from, Math.min(to, center)));
        }
        return e;
    }

    /** Where a vertex's line beats a neighbour's: nowhere, everywhere, beyond or before their crossing, or unknown. */
    private static final int NOWHERE = 0;
    private static final int EVERYWHERE = 1;
    private static final int BEYOND = 2;
    private static final int BEFORE = 3;
    private static final int UNKNOWN = 4;

    /**
     * Whether {@code v} can be a piece, i.e. strictly better (below for the lower envelope, above
     * for the upper) than both its neighbours on the polygon on some interval of x. Those that
     * cannot are dropped before the hull, which then comes out the same: a line never strictly
     * better than two others is never strictly better than all. What remains is the chain of the
     * polygon facing the envelope, whose neighbours cross at a shared constraint point — an
     * integer, where a vertex of the far side would need an exact rational crossing. Keeps
     * {@code v} when unsure.
     */
    private static boolean mayBePiece(PolygonVertex previous, PolygonVertex v, PolygonVertex next, boolean lower) {
        int before = beats(v, previous, lower);
        int after = beats(v, next, lower);
        if (before == NOWHERE || after == NOWHERE) {
            return false;
        }
        if (before == BEYOND && after == BEFORE) {
            return v.sharedPoint(previous).x < v.sharedPoint(next).x;
        }
        if (before == BEFORE && after == BEYOND) {
            return v.sharedPoint(next).x < v.sharedPoint(previous).x;
        }
        return true;
    }

    /** Where {@code v} beats its neighbour {@code t}; their crossing is the x of a shared point. */
    private static int beats(PolygonVertex v, PolygonVertex t, boolean lower) {
        int slopes = v.compareSlope(t);
        if (slopes == 0) {
            int intercepts = v.compareInterceptOfEqualSlope(t);
            if (intercepts == 0) {
                return UNKNOWN; // the same line twice: keep both, the hull merges them
            }
            return (lower ? intercepts < 0 : intercepts > 0) ? EVERYWHERE : NOWHERE;
        }
        if (v.sharedPoint(t) == null) {
            return UNKNOWN;
        }
        // Below t beyond the crossing when less steep (lower envelope); above when steeper (upper).
        return (lower ? slopes < 0 : slopes > 0) ? BEYOND : BEFORE;
    }

    private static int lowerOrder(PolygonVertex a, PolygonVertex b) {
        int bySlope = b.compareSlope(a);
        return bySlope != 0 ? bySlope : a.compareInterceptOfEqualSlope(b);
    }

    private static int upperOrder(PolygonVertex a, PolygonVertex b) {
        int bySlope = a.compareSlope(b);
        return bySlope != 0 ? bySlope : b.compareInterceptOfEqualSlope(a);
    }

    /**
     * Whether {@code v} crosses {@code last} at or before {@code previous}, the crossing of
     * {@code last} with its predecessor: along x, {@code v − last} falls (lower envelope, slopes
     * descending) or rises (upper), so that is its sign at {@code previous}.
     */
    private static boolean overtakesBy(PolygonVertex last, PolygonVertex v, Crossing previous, boolean lower) {
        int sign = previous.point != null
                // last passes through the point, so v − last there is v's value minus the point's y.
                ? v.valueSign(previous.point.x, previous.point.y)
                : previous.signOfDifference(v, last);
        return lower ? sign <= 0 : sign >= 0;
    }

    /** Where two lines of different slopes cross: at a common point, else an exact rational. */
    private static final class Crossing {
        final HalfPlane point;
        private final BigInteger num;
        private final BigInteger den;

        private Crossing(HalfPlane point, BigInteger num, BigInteger den) {
            this.point = point;
            this.num = num;
            this.den = den;
        }

        /**
         * {@code x = (α_b − α_a)/(F_a − F_b)}; with {@code α = A/D}, {@code F = S/D} that is
         * {@code (A_b·D_a − A_a·D_b)/(S_a·D_b − S_b·D_a)}.
         */
        static Crossing of(PolygonVertex a, PolygonVertex b) {
            HalfPlane shared = a.sharedPoint(b);
            if (shared != null) {
                return new Crossing(shared, null, null);
            }
            PolygonVertex.Exact ea = a.exact();
            PolygonVertex.Exact eb = b.exact();
            BigInteger num = eb.alpha.multiply(ea.den).subtract(ea.alpha.multiply(eb.den));
            BigInteger den = ea.slope.multiply(eb.den).subtract(eb.slope.multiply(ea.den));
            return den.signum() > 0 ? new Crossing(null, num, den) : new Crossing(null, num.negate(), den.negate());
        }

        /**
         * The sign of {@code (v − w)(x)} at this crossing {@code x = num/den}: that of
         * {@code (A_v·D_w − A_w·D_v)·den + (S_v·D_w − S_w·D_v)·num}, the difference times
         * {@code D_v·D_w·den > 0}.
         */
        int signOfDifference(PolygonVertex v, PolygonVertex w) {
            PolygonVertex.Exact ev = v.exact();
            PolygonVertex.Exact ew = w.exact();
            BigInteger intercepts = ev.alpha.multiply(ew.den).subtract(ew.alpha.multiply(ev.den));
            BigInteger slopes = ev.slope.multiply(ew.den).subtract(ew.slope.multiply(ev.den));
            return intercepts.multiply(den).add(slopes.multiply(num)).signum();
        }

        /**
         * {@code floor(x)}, clamped to {@code [MIN_VALUE, MAX_VALUE − 1]}: a crossing beyond the
         * range of a long then switches pieces only at the extreme longs, which
         * {@link #evaluate} refuses to bound.
         */
        long floor() {
            if (point != null) {
                return point.x;
            }
            BigInteger f = Envelope.floor(num, den);
            if (f.bitLength() > 63) {
                return f.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE - 1;
            }
            return Math.min(f.longValue(), Long.MAX_VALUE - 1);
        }
    }

    private void set(int p, PolygonVertex line, long fallback) {
        HalfPlane on = anchor(line, fallback);
        if (on != null) {
            anchor[p] = on.x;
            value[p] = on.y; // the line passes through it: the value is exact
            exact[p] = true;
        } else {
            anchor[p] = fallback;
            PolygonVertex.Exact e = line.exact();
            BigInteger num = e.alpha.add(e.slope.multiply(BigInteger.valueOf(fallback)));
            BigInteger v = lower ? floor(num, e.den) : floor(num.negate(), e.den).negate();
            exact[p] = v.bitLength() <= 63;
            value[p] = exact[p] ? v.longValue() : 0;
        }
        long[] down = new long[2];
        long[] up = new long[2];
        slopeQ64(line, down, up);
        slopeDownInt[p] = down[0];
        slopeDownFrac[p] = down[1];
        slopeUpInt[p] = up[0];
        slopeUpFrac[p] = up[1];
    }

    /**
     * The point the line passes through that is nearest to {@code fallback} (distance as
     * {@code Math.abs} of the long difference), or null if it passes through none. The candidates
     * are the points the clip found on the line, in the order it met them; on a tie the first
     * wins, which is the earliest in the points' order (a point met later on a line already
     * named by an earlier one has a later index).
     */
    private static HalfPlane anchor(PolygonVertex line, long fallback) {
        HalfPlane best = null;
        long nearest = 0;
        for (int i = 0; i < line.throughCount(); i++) {
            HalfPlane q = line.through(i);
            long d = Math.abs(q.x - fallback);
            if (best == null || d < nearest) {
                best = q;
                nearest = d;
            }
        }
        return best;
    }

    /** {@code floor(F·2⁶⁴)} into {@code down}, {@code ceil(F·2⁶⁴)} into {@code up}, each as {@code {int, frac}}. */
    private static void slopeQ64(PolygonVertex line, long[] down, long[] up) {
        if (line.hasSmallSlope()) {
            long n = line.slopeNum();
            long d = line.slopeDen();
            long whole = Math.floorDiv(n, d);
            long rest = Math.floorMod(n, d);
            // floor(rest·2⁶⁴/d) by long division, one bit at a time: rest < d < 2⁶³, so 2·rest fits unsigned.
            long frac = 0;
            for (int bit = 0; bit < 64; bit++) {
                rest <<= 1;
                frac <<= 1;
                if (Long.compareUnsigned(rest, d) >= 0) {
                    rest -= d;
                    frac |= 1;
                }
            }
            down[0] = whole;
            down[1] = frac;
            boolean exact = rest == 0;
            up[0] = exact || frac != -1L ? whole : whole + 1;
            up[1] = exact ? frac : frac + 1;
            return;
        }
        PolygonVertex.Exact e = line.exact();
        BigInteger[] qr = e.slope.shiftLeft(64).divideAndRemainder(e.den);
        BigInteger floor = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        BigInteger ceil = qr[1].signum() == 0 ? floor : floor.add(BigInteger.ONE);
        down[0] = floor.shiftRight(64).longValueExact();
        down[1] = floor.longValue();
        up[0] = ceil.shiftRight(64).longValueExact();
        up[1] = ceil.longValue();
    }

    /** {@code floor(num/den)} for {@code den > 0}. */
    private static BigInteger floor(BigInteger num, BigInteger den) {
        BigInteger[] qr = num.divideAndRemainder(den);
        BigInteger q = qr[0];
        if (qr[1].signum() != 0 && num.signum() < 0) {
            q = q.subtract(BigInteger.ONE);
        }
        return q;
    }

    int pieces() {
        return start.length;
    }

    /** The piece for {@code x}, searching from {@code hint} (the last piece used). */
    int locate(long x, int hint) {
        int p = hint;
        while (p + 1 < start.length && x >= start[p + 1]) {
            p++;
        }
        while (p > 0 && x < start[p]) {
            p--;
        }
        return p;
    }

    /**
     * The bound at {@code x} on piece {@code p}: ≤ L(x) for the lower envelope, ≥ U(x) for the
     * upper; {@code MIN_VALUE} (lower) or {@code MAX_VALUE} (upper) when it has no exact value in
     * a long — every sum and product here is checked — or x is an extreme long, where a piece
     * switch may have been clamped.
     */
    long evaluate(int p, long x) {
        long none = lower ? Long.MIN_VALUE : Long.MAX_VALUE;
        if (!exact[p] || x == Long.MIN_VALUE || x == Long.MAX_VALUE) {
            return none;
        }
        try {
            long d = Math.subtractExact(x, anchor[p]);
            if (lower) {
                return d >= 0 ? Math.addExact(value[p], mulFloor(d, slopeDownInt[p], slopeDownFrac[p]))
                        : Math.addExact(value[p], mulFloor(d, slopeUpInt[p], slopeUpFrac[p]));
            }
            return d >= 0 ? Math.subtractExact(value[p], mulFloor(Math.negateExact(d), slopeUpInt[p], slopeUpFrac[p]))
                    : Math.subtractExact(value[p], mulFloor(Math.negateExact(d), slopeDownInt[p], slopeDownFrac[p]));
        } catch (ArithmeticException beyondLong) {
            return none;
        }
    }

    /** Whether piece p's anchor value is exact (else it gives no bound). */
    boolean exact(int p) {
        return exact[p];
    }

    /** The first x of the piece after {@code p}, or MAX_VALUE. */
    long nextStart(int p) {
        return p + 1 < start.length ? start[p + 1] : Long.MAX_VALUE;
    }

    long anchor(int p) {
        return anchor[p];
    }

    long value(int p) {
        return value[p];
    }

    /**
     * The slope of piece p rounded the way the bound needs for offsets of the given sign
     * ({@code d ≥ 0}: down for the lower envelope, up for the upper; {@code d < 0}: the other),
     * as {@code {int, frac}}.
     */
    long slopeInt(int p, boolean nonNegative) {
        return lower == nonNegative ? slopeDownInt[p] : slopeUpInt[p];
    }

    long slopeFrac(int p, boolean nonNegative) {
        return lower == nonNegative ? slopeDownFrac[p] : slopeUpFrac[p];
    }

    boolean isLower() {
        return lower;
    }

    /**
     * {@code floor(d · (fi + ff/2⁶⁴))} with {@code ff} unsigned: {@code d·fi} plus the high word
     * of the 128-bit product {@code d·ff}, which an arithmetic shift makes a floor.
     */
    static long mulFloor(long d, long fi, long ff) {
        // |high| ≤ |d|: multiplyHigh(d, ff) is at most |d|/2 in magnitude, the correction at most |d|.
        long high = Math.multiplyHigh(d, ff) + ((ff >> 63) & d);
        return Math.addExact(Math.multiplyExact(d, fi), high);
    }
}
