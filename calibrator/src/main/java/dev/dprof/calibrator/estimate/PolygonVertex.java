package dev.dprof.calibrator.estimate;

import java.math.BigInteger;
import java.util.Arrays;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * A vertex of the feasible polygon — one candidate conversion {@code c(x) = α + F·x} — named by
 * two sides of the polygon it lies on (DProf Alg. 3 and 4; docs/BOUNDS.md, "Arithmetic"). In the
 * {@code (x, y)} plane of the conversion it is the line through two constraint points, through
 * one with a slope limit of the box, or a corner of the box.
 *
 * <h2>Implementation notes: exact without fractions</h2>
 * Every predicate is a determinant of the sides' own integers, so no result builds on an earlier
 * clip's arithmetic, magnitudes stay bounded, and nothing is ever reduced by a gcd:
 * <ul>
 * <li>The usual vertex has a point {@code (px, py)} on its line and a slope {@code n/d} of
 * 64-bit integers; which side of it a point {@code (x, y)} lies on is the sign of
 * {@code n·(x − px) − d·(y − py)}, two 128-bit products compared with
 * {@link Math#multiplyHigh} ({@link PointHull#compareProducts}).</li>
 * <li>A corner's intercept {@code ±2^100} outweighs {@code F·x − y} for any 64-bit point, so its
 * side is its intercept's sign.</li>
 * <li>Only when a difference overflows 64 bits, or for a side {@code α = ±2^100} (which no 64-bit
 * point's line meets inside the box), does a predicate use {@link #exact()}: Cramer's rule on
 * the two sides, products of at most about 2^170, no division.</li>
 * </ul>
 */
final class PolygonVertex {
    final HalfPlane first;
    final HalfPlane second;
    private final boolean hasPoint;
    private final long pointX;
    private final long pointY;
    /** The slope is {@code slopeNum/slopeDen} with {@code slopeDen > 0}, when both fit in a long. */
    private final boolean smallSlope;
    private final long slopeNum;
    private final long slopeDen;
    /** For a corner of the box, the sign of its intercept; 0 for any other vertex. */
    private final int corner;
    /**
     * Constraint points the line passes through: the sides that name it, and every later point
     * found to pass exactly through it while clipping — the candidates to anchor it on.
     */
    private HalfPlane[] through;
    private int throughCount;
    /** Computed when a predicate first needs it; final fields, so sharing it needs no lock. */
    private Exact exact;

    /** The vertex as {@code α = alpha/den}, {@code F = slope/den}, {@code den > 0}. */
    static final class Exact {
        final BigInteger alpha;
        final BigInteger slope;
        final BigInteger den;

        private Exact(BigInteger alpha, BigInteger slope, BigInteger den) {
            this.alpha = alpha;
            this.slope = slope;
            this.den = den;
        }
    }

    private PolygonVertex(HalfPlane first, HalfPlane second, boolean hasPoint, long pointX, long pointY,
                          boolean smallSlope, long slopeNum, long slopeDen, int corner) {
        this.first = first;
        this.second = second;
        this.hasPoint = hasPoint;
        this.pointX = pointX;
        this.pointY = pointY;
        this.smallSlope = smallSlope;
        this.slopeNum = slopeNum;
        this.slopeDen = slopeDen;
        this.corner = corner;
        this.through = new HalfPlane[2];
        if (first.isPoint()) {
            through[throughCount++] = first;
        }
        if (second.isPoint()) {
            through[throughCount++] = second;
        }
    }

    /**
     * The vertex where two sides meet.
     *
     * @throws IllegalStateException if they are parallel: the clip asked for a crossing that does
     *         not exist, which would be a defect here, never a property of the data
     */
    static PolygonVertex of(HalfPlane a, HalfPlane b) {
        if (!a.isPoint() && b.isPoint()) {
            return of(b, a);
        }
        if (a.isPoint() && b.isPoint()) {
            if (a.x == b.x) {
                throw new IllegalStateException("two points at x = " + a.x + " name no vertex");
            }
            long dx = b.x - a.x;
            long dy = b.y - a.y;
            boolean small = !subtractionOverflowed(b.x, a.x, dx) && !subtractionOverflowed(b.y, a.y, dy)
                    && dx != Long.MIN_VALUE && dy != Long.MIN_VALUE;
            if (dx < 0) {
                dx = -dx;
                dy = -dy;
            }
            return new PolygonVertex(a, b, true, a.x, a.y, small, dy, dx, 0);
        }
        if (a.isPoint()) {
            if (b.kind == HalfPlane.Kind.SLOPE) {
                return new PolygonVertex(a, b, true, a.x, a.y, true, boxSlopeNum(b), boxSlopeDen(b), 0);
            }
            if (a.x == 0) {
                throw new IllegalStateException("the point at x = 0 is parallel to the intercept limit");
            }
            return new PolygonVertex(a, b, true, a.x, a.y, false, 0, 1, 0);
        }
        if (a.kind == b.kind) {
            throw new IllegalStateException("parallel sides of the box name no vertex");
        }
        HalfPlane slope = a.kind == HalfPlane.Kind.SLOPE ? a : b;
        HalfPlane intercept = a.kind == HalfPlane.Kind.INTERCEPT ? a : b;
        return new PolygonVertex(a, b, false, 0, 0, true, boxSlopeNum(slope), boxSlopeDen(slope), intercept.sign);
    }

    private static long boxSlopeNum(HalfPlane slope) {
        return slope.sign > 0 ? 1L << HalfPlane.BOX_SLOPE_SHIFT : 1;
    }

    private static long boxSlopeDen(HalfPlane slope) {
        return slope.sign > 0 ? 1 : 1L << HalfPlane.BOX_SLOPE_SHIFT;
    }

    /** Whether {@code difference = a − b} wrapped around. */
    private static boolean subtractionOverflowed(long a, long b, long difference) {
        return ((a ^ b) & (a ^ difference)) < 0;
    }

    /** The sign of {@code α + F·x − y}: where the line passes relative to the point {@code (x, y)}. */
    int valueSign(long x, long y) {
        if (corner != 0) {
            return corner;
        }
        if (smallSlope && hasPoint) {
            long dx = x - pointX;
            long dy = y - pointY;
            if (!subtractionOverflowed(x, pointX, dx) && !subtractionOverflowed(y, pointY, dy)) {
                return PointHull.compareProducts(slopeNum, dx, dy, slopeDen);
            }
        }
        Exact e = exact();
        BigInteger value = e.alpha.add(e.slope.multiply(BigInteger.valueOf(x)));
        return value.subtract(e.den.multiply(BigInteger.valueOf(y))).signum();
    }

    /** The sign of {@code F − F'}. */
    int compareSlope(PolygonVertex other) {
        if (smallSlope && other.smallSlope) {
            return PointHull.compareProducts(slopeNum, other.slopeDen, other.slopeNum, slopeDen);
        }
        Exact e = exact();
        Exact o = other.exact();
        return e.slope.multiply(o.den).compareTo(o.slope.multiply(e.den));
    }

    /**
     * The sign of {@code α − α'} for two lines of equal slope: then it is the sign of their
     * difference anywhere, e.g. at a point the other passes through.
     */
    int compareInterceptOfEqualSlope(PolygonVertex other) {
        if (other.hasPoint) {
            return valueSign(other.pointX, other.pointY);
        }
        if (hasPoint) {
            return -other.valueSign(pointX, pointY);
        }
        if (corner != 0 && other.corner != 0) {
            return Integer.compare(corner, other.corner);
        }
        Exact e = exact();
        Exact o = other.exact();
        return e.alpha.multiply(o.den).compareTo(o.alpha.multiply(e.den));
    }

    /** Whether both are the same line: equal slope and intercept. */
    boolean sameAs(PolygonVertex other) {
        return compareSlope(other) == 0 && compareInterceptOfEqualSlope(other) == 0;
    }

    /** Notes that the point of {@code side} lies exactly on this line. */
    void addThrough(HalfPlane side) {
        for (int i = 0; i < throughCount; i++) {
            if (through[i] == side) {
                return;
            }
        }
        if (throughCount == through.length) {
            through = Arrays.copyOf(through, 2 * throughCount);
        }
        through[throughCount++] = side;
    }

    /** Takes over the points of an equal vertex that is dropped in favour of this one. */
    void absorb(PolygonVertex equal) {
        for (int i = 0; i < equal.throughCount; i++) {
            addThrough(equal.through[i]);
        }
    }

    int throughCount() {
        return throughCount;
    }

    HalfPlane through(int i) {
        return through[i];
    }

    /** A constraint point both lines pass through, or null: then they cross at its x. */
    HalfPlane sharedPoint(PolygonVertex other) {
        for (int i = 0; i < throughCount; i++) {
            for (int j = 0; j < other.throughCount; j++) {
                if (through[i].samePointAs(other.through[j])) {
                    return through[i];
                }
            }
        }
        return null;
    }

    boolean hasSmallSlope() {
        return smallSlope;
    }

    long slopeNum() {
        return slopeNum;
    }

    long slopeDen() {
        return slopeDen;
    }

    /**
     * The vertex by Cramer's rule on its two sides {@code a·α + b·F = c}:
     * {@code den = a₁b₂ − a₂b₁}, {@code alpha = c₁b₂ − c₂b₁}, {@code slope = a₁c₂ − a₂c₁}, signs
     * turned so that {@code den > 0}.
     */
    Exact exact() {
        if (exact == null) {
            BigInteger[] p = first.coefficients();
            BigInteger[] q = second.coefficients();
            BigInteger d = p[0].multiply(q[1]).subtract(q[0].multiply(p[1]));
            BigInteger alpha = p[2].multiply(q[1]).subtract(q[2].multiply(p[1]));
            BigInteger f = p[0].multiply(q[2]).subtract(q[0].multiply(p[2]));
            if (d.signum() == 0) {
                throw new IllegalStateException("parallel sides name no vertex");
            }
            exact = d.signum() > 0 ? new Exact(alpha, f, d) : new Exact(alpha.negate(), f.negate(), d.negate());
        }
        return exact;
    }

    /** The exact intercept α (reduced: for reports and tests, not the construction). */
    BigFraction alpha() {
        return BigFraction.of(exact().alpha, exact().den);
    }

    /** The exact relative frequency F (reduced: for reports and tests, not the construction). */
    BigFraction f() {
        return BigFraction.of(exact().slope, exact().den);
    }

    BigFraction at(BigFraction x) {
        return alpha().add(f().multiply(x));
    }
}
