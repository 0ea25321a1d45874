package dev.dprof.calibrator.estimate;

import java.math.BigInteger;

/**
 * One side of the feasible polygon in the {@code (α, F)} plane, kept with the integers it was
 * given (docs/BOUNDS.md, "Arithmetic"): a {@link LinePoint} {@code (x, y)} bounds it by
 * the line {@code α + x·F = y}; the box of {@link FeasibleLines} by {@code F = 2^±16} and
 * {@code α = ±2^100}. A vertex is named by two of these, so everything about it is computed
 * from these integers afresh, never from an earlier clip's arithmetic.
 *
 * <p>In the {@code (x, y)} plane of the conversion, a point side says that the candidate line
 * passes through {@code (x, y)}; a slope side fixes its slope, an intercept side its intercept.
 */
final class HalfPlane {
    enum Kind { POINT, SLOPE, INTERCEPT }

    static final int BOX_SLOPE_SHIFT = 16;
    static final int BOX_INTERCEPT_SHIFT = 100;

    static final HalfPlane SLOPE_MIN = new HalfPlane(Kind.SLOPE, -1, 0, 0);
    static final HalfPlane SLOPE_MAX = new HalfPlane(Kind.SLOPE, 1, 0, 0);
    static final HalfPlane INTERCEPT_MIN = new HalfPlane(Kind.INTERCEPT, -1, 0, 0);
    static final HalfPlane INTERCEPT_MAX = new HalfPlane(Kind.INTERCEPT, 1, 0, 0);

    final Kind kind;
    /** For a slope or intercept side: +1 at the box's upper limit, −1 at its lower. */
    final int sign;
    final long x;
    final long y;

    private HalfPlane(Kind kind, int sign, long x, long y) {
        this.kind = kind;
        this.sign = sign;
        this.x = x;
        this.y = y;
    }

    static HalfPlane of(LinePoint point) {
        return new HalfPlane(Kind.POINT, 0, point.x(), point.y());
    }

    boolean isPoint() {
        return kind == Kind.POINT;
    }

    /**
     * The line as integers {@code {a, b, c}} with {@code a·α + b·F = c}: {@code {1, x, y}} for a
     * point, {@code {0, 2^16, 1}} and {@code {0, 1, 2^16}} for the slope limits,
     * {@code {1, 0, ±2^100}} for the intercept limits. Only the exact fallback uses it.
     */
    BigInteger[] coefficients() {
        return switch (kind) {
            case POINT -> new BigInteger[] {BigInteger.ONE, BigInteger.valueOf(x), BigInteger.valueOf(y)};
            case SLOPE -> sign < 0
                    ? new BigInteger[] {BigInteger.ZERO, BigInteger.ONE.shiftLeft(BOX_SLOPE_SHIFT), BigInteger.ONE}
                    : new BigInteger[] {BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.shiftLeft(BOX_SLOPE_SHIFT)};
            case INTERCEPT -> new BigInteger[] {BigInteger.ONE, BigInteger.ZERO,
                    sign < 0 ? BigInteger.ONE.shiftLeft(BOX_INTERCEPT_SHIFT).negate()
                            : BigInteger.ONE.shiftLeft(BOX_INTERCEPT_SHIFT)};
        };
    }

    /** Whether both are points with the same coordinates: then they are the same line. */
    boolean samePointAs(HalfPlane other) {
        return isPoint() && other.isPoint() && x == other.x && y == other.y;
    }
}
