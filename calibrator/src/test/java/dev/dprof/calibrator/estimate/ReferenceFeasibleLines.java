package dev.dprof.calibrator.estimate;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * The oracle for {@link FeasibleLines} and {@link Envelope}: the construction as it was first
 * written, every intermediate an exact reduced {@link BigFraction} — slow (each operation
 * reduces by a gcd, and clips build on earlier clips' results) but plainly exact. The exact
 * construction must produce the same polygon and the same envelope arrays.
 */
final class ReferenceFeasibleLines {
    static final BigFraction F_MIN = BigFraction.of(BigInteger.ONE, BigInteger.ONE.shiftLeft(16));
    static final BigFraction F_MAX = BigFraction.of(BigInteger.ONE.shiftLeft(16));
    private static final BigFraction ALPHA_LIMIT = BigFraction.of(BigInteger.ONE.shiftLeft(100));

    /** A vertex of the polygon: one feasible line. */
    record Vertex(BigFraction alpha, BigFraction f) {
        BigFraction at(BigFraction x) {
            return alpha.add(f.multiply(x));
        }
    }

    /** The arrays of an {@link Envelope}, piece by piece. */
    record EnvelopeArrays(long[] start, long[] anchor, long[] value, long[] slopeDownInt, long[] slopeDownFrac,
                          long[] slopeUpInt, long[] slopeUpFrac) {
    }

    private final List<Vertex> vertices;

    private ReferenceFeasibleLines(List<Vertex> vertices) {
        this.vertices = vertices;
    }

    static Optional<ReferenceFeasibleLines> of(Collection<LinePoint> points) {
        List<Vertex> polygon = new ArrayList<>(List.of(
                new Vertex(ALPHA_LIMIT.negate(), F_MIN), new Vertex(ALPHA_LIMIT, F_MIN),
                new Vertex(ALPHA_LIMIT, F_MAX), new Vertex(ALPHA_LIMIT.negate(), F_MAX)));
        for (LinePoint p : points) {
            polygon = clip(polygon, p);
            if (polygon.isEmpty()) {
                return Optional.empty();
            }
        }
        return Optional.of(new ReferenceFeasibleLines(polygon));
    }

    List<Vertex> vertices() {
        return vertices;
    }

    private static BigFraction slack(Vertex v, LinePoint p) {
        BigFraction value = v.at(BigFraction.of(p.x())).subtract(p.y());
        return p.lower() ? value : value.negate();
    }

    private static List<Vertex> clip(List<Vertex> polygon, LinePoint p) {
        List<Vertex> out = new ArrayList<>();
        int n = polygon.size();
        for (int i = 0; i < n; i++) {
            Vertex a = polygon.get(i);
            Vertex b = polygon.get((i + 1) % n);
            BigFraction sa = slack(a, p);
            BigFraction sb = slack(b, p);
            if (sa.signum() >= 0) {
                add(out, a);
            }
            if (sa.signum() * sb.signum() < 0) {
                BigFraction t = sa.divide(sa.subtract(sb));
                add(out, new Vertex(a.alpha.add(b.alpha.subtract(a.alpha).multiply(t)),
                        a.f.add(b.f.subtract(a.f).multiply(t))));
            }
        }
        if (out.size() > 1 && out.get(0).equals(out.get(out.size() - 1))) {
            out.remove(out.size() - 1);
        }
        return out;
    }

    private static void add(List<Vertex> out, Vertex v) {
        if (out.isEmpty() || !out.get(out.size() - 1).equals(v)) {
            out.add(v);
        }
    }

    /** The lower or upper envelope, built as {@link Envelope#of} was: anchors searched among all points. */
    EnvelopeArrays envelope(List<LinePoint> points, boolean lower, long center) {
        List<Vertex> sorted = new ArrayList<>(vertices);
        Comparator<Vertex> bySlope = Comparator.comparing(Vertex::f);
        Comparator<Vertex> byIntercept = Comparator.comparing(Vertex::alpha);
        sorted.sort(lower ? bySlope.reversed().thenComparing(byIntercept)
                : bySlope.thenComparing(byIntercept.reversed()));
        List<Vertex> hull = new ArrayList<>();
        List<BigFraction> breaks = new ArrayList<>();
        for (Vertex v : sorted) {
            if (!hull.isEmpty() && hull.get(hull.size() - 1).f().compareTo(v.f()) == 0) {
                continue;
            }
            while (hull.size() >= 2 && crossing(hull.get(hull.size() - 1), v).compareTo(breaks.get(breaks.size() - 1)) <= 0) {
                hull.remove(hull.size() - 1);
                breaks.remove(breaks.size() - 1);
            }
            if (!hull.isEmpty()) {
                breaks.add(crossing(hull.get(hull.size() - 1), v));
            }
            hull.add(v);
        }
        int n = hull.size();
        EnvelopeArrays e = new EnvelopeArrays(new long[n], new long[n], new long[n], new long[n], new long[n],
                new long[n], new long[n]);
        for (int p = 0; p < n; p++) {
            e.start[p] = p == 0 ? Long.MIN_VALUE : floor(breaks.get(p - 1)) + 1;
            long from = p == 0 ? Long.MIN_VALUE : e.start[p];
            long to = p == n - 1 ? Long.MAX_VALUE : floor(breaks.get(p));
            Vertex line = hull.get(p);
            long x = anchor(line, points, Math.max(from, Math.min(to, center)));
            e.anchor[p] = x;
            BigFraction y = line.at(BigFraction.of(x));
            e.value[p] = lower ? exactFloor(y) : exactCeil(y);
            BigInteger scaled = line.f().getNumerator().shiftLeft(64);
            BigInteger[] qr = scaled.divideAndRemainder(line.f().getDenominator());
            BigInteger down = qr[0];
            BigInteger up = qr[1].signum() == 0 ? down : down.add(BigInteger.ONE);
            e.slopeDownInt[p] = down.shiftRight(64).longValueExact();
            e.slopeDownFrac[p] = down.longValue();
            e.slopeUpInt[p] = up.shiftRight(64).longValueExact();
            e.slopeUpFrac[p] = up.longValue();
        }
        return e;
    }

    private static long anchor(Vertex line, List<LinePoint> points, long fallback) {
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

    private static BigFraction crossing(Vertex a, Vertex b) {
        return b.alpha().subtract(a.alpha()).divide(a.f().subtract(b.f()));
    }

    /** A value that does not fit a long: the envelope gives no bound there. */
    static final long NOT_EXACT = Long.MIN_VALUE;

    private static BigInteger bigFloor(BigFraction f) {
        BigInteger[] qr = f.getNumerator().divideAndRemainder(f.getDenominator());
        BigInteger q = qr[0];
        if (qr[1].signum() != 0 && f.signum() < 0) {
            q = q.subtract(BigInteger.ONE);
        }
        return q;
    }

    /** A breakpoint's floor, clamped to {@code [MIN_VALUE, MAX_VALUE − 1]} (switches beyond a long happen at its ends). */
    private static long floor(BigFraction f) {
        BigInteger q = bigFloor(f);
        if (q.bitLength() > 63) {
            return q.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE - 1;
        }
        return Math.min(q.longValue(), Long.MAX_VALUE - 1);
    }

    private static long exactFloor(BigFraction f) {
        BigInteger q = bigFloor(f);
        return q.bitLength() > 63 ? NOT_EXACT : q.longValue();
    }

    private static long exactCeil(BigFraction f) {
        BigInteger q = bigFloor(f.negate()).negate();
        return q.bitLength() > 63 ? NOT_EXACT : q.longValue();
    }
}
