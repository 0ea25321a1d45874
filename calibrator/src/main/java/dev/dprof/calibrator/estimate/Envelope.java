package dev.dprof.calibrator.estimate;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.commons.numbers.fraction.BigFraction;

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

    private Envelope(boolean lower, int n) {
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
     * integers), so only the slope is rounded; lines of the box alone are anchored near {@code center}.
     */
    static Envelope of(FeasibleLines lines, List<LinePoint> points, boolean lower, long center) {
        List<FeasibleLines.Vertex> sorted = new ArrayList<>(lines.vertices());
        // Min envelope: slopes descending along increasing x; max envelope: ascending.
        Comparator<FeasibleLines.Vertex> bySlope = Comparator.comparing(FeasibleLines.Vertex::f);
        Comparator<FeasibleLines.Vertex> byIntercept = Comparator.comparing(FeasibleLines.Vertex::alpha);
        sorted.sort(lower ? bySlope.reversed().thenComparing(byIntercept)
                : bySlope.thenComparing(byIntercept.reversed()));
        List<FeasibleLines.Vertex> hull = new ArrayList<>();
        List<BigFraction> breaks = new ArrayList<>();
        for (FeasibleLines.Vertex v : sorted) {
            if (!hull.isEmpty() && hull.get(hull.size() - 1).f().compareTo(v.f()) == 0) {
                continue; // same slope: the first kept is the better intercept
            }
            // The last line is never optimal if v overtakes it before it overtook its predecessor.
            while (hull.size() >= 2 && crossing(hull.get(hull.size() - 1), v).compareTo(breaks.get(breaks.size() - 1)) <= 0) {
                hull.remove(hull.size() - 1);
                breaks.remove(breaks.size() - 1);
            }
            if (!hull.isEmpty()) {
                breaks.add(crossing(hull.get(hull.size() - 1), v));
            }
            hull.add(v);
        }
        Envelope e = new Envelope(lower, hull.size());
        for (int p = 0; p < hull.size(); p++) {
            e.start[p] = p == 0 ? Long.MIN_VALUE : floor(breaks.get(p - 1)) + 1;
            long from = p == 0 ? Long.MIN_VALUE : e.start[p];
            long to = p == hull.size() - 1 ? Long.MAX_VALUE : floor(breaks.get(p));
            e.set(p, hull.get(p), anchor(hull.get(p), points, Math.max(from, Math.min(to, center))));
        }
        return e;
    }

    private void set(int p, FeasibleLines.Vertex line, long x) {
        anchor[p] = x;
        BigFraction y = line.at(BigFraction.of(x));
        value[p] = lower ? floor(y) : ceil(y);
        BigInteger scaled = line.f().getNumerator().shiftLeft(64);
        BigInteger[] qr = scaled.divideAndRemainder(line.f().getDenominator());
        BigInteger down = qr[0];
        BigInteger up = qr[1].signum() == 0 ? down : down.add(BigInteger.ONE);
        slopeDownInt[p] = down.shiftRight(64).longValueExact();
        slopeDownFrac[p] = down.longValue();
        slopeUpInt[p] = up.shiftRight(64).longValueExact();
        slopeUpFrac[p] = up.longValue();
    }

    /** A point on the line, the one nearest to {@code fallback}; else {@code fallback}. */
    private static long anchor(FeasibleLines.Vertex line, List<LinePoint> points, long fallback) {
        long best = fallback;
        boolean found = false;
        for (LinePoint q : points) {
            if (line.at(BigFraction.of(q.x())).compareTo(BigFraction.of(q.y())) == 0
                    && (!found || Math.abs(q.x() - fallback) < Math.abs(best - fallback))) {
                best = q.x();
                found = true;
            }
        }
        return best;
    }

    /** Where the lines of a and b cross (their slopes differ). */
    private static BigFraction crossing(FeasibleLines.Vertex a, FeasibleLines.Vertex b) {
        return b.alpha().subtract(a.alpha()).divide(a.f().subtract(b.f()));
    }

    static long floor(BigFraction f) {
        BigInteger[] qr = f.getNumerator().divideAndRemainder(f.getDenominator());
        BigInteger q = qr[0];
        if (qr[1].signum() != 0 && f.signum() < 0) {
            q = q.subtract(BigInteger.ONE);
        }
        return clamp(q);
    }

    static long ceil(BigFraction f) {
        return -floor(f.negate());
    }

    private static long clamp(BigInteger v) {
        if (v.bitLength() > 63) {
            return v.signum() < 0 ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
        }
        return v.longValue();
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

    /** The bound at {@code x} on piece {@code p}: ≤ L(x) for the lower envelope, ≥ U(x) for the upper. */
    long evaluate(int p, long x) {
        long d = x - anchor[p];
        if (lower) {
            return d >= 0 ? value[p] + mulFloor(d, slopeDownInt[p], slopeDownFrac[p])
                    : value[p] + mulFloor(d, slopeUpInt[p], slopeUpFrac[p]);
        }
        return d >= 0 ? value[p] - mulFloor(-d, slopeUpInt[p], slopeUpFrac[p])
                : value[p] - mulFloor(-d, slopeDownInt[p], slopeDownFrac[p]);
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
        long high = Math.multiplyHigh(d, ff) + ((ff >> 63) & d);
        return Math.multiplyExact(d, fi) + high;
    }
}
