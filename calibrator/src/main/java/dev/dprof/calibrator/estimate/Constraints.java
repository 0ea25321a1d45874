package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.Zero;

/**
 * Turns observations into {@link LinePoint}s, treating every clock as an integer reading of a
 * continuous, strictly increasing clock: a reading {@code k} means the continuous value lies in
 * {@code [k, k+1)}. That is what makes the bounds exact for integer counters rather than sound
 * only "up to a tick".
 *
 * <p>Let {@code N(t)} and {@code P(t)} be the continuous node and parent clocks and
 * {@code P = c(N)} with {@code c(x) = α + F·x} (DProf Eq. 2) within a window.
 */
public final class Constraints {
    private Constraints() {
    }

    /**
     * A node-initiated zero (DProf Alg. 4) {@code k1 < a < k2} in real time. From
     * {@code N(t_a) > N(t1) ≥ k1} and {@code P(t_a) < a + 1}: {@code c(k1) < a + 1} (upper point);
     * from {@code N(t_a) < N(t2) < k2 + 1} and {@code P(t_a) ≥ a}: {@code c(k2 + 1) > a} (lower point).
     */
    public static LinePoint[] of(Zero zero) {
        // A reading of Long.MAX_VALUE has no representable upper end: that point is left out,
        // which only widens the bounds.
        if (zero.a() == Long.MAX_VALUE && zero.k2() == Long.MAX_VALUE) {
            return new LinePoint[0];
        }
        if (zero.a() == Long.MAX_VALUE) {
            return new LinePoint[] {LinePoint.lower(zero.k2() + 1, zero.a())};
        }
        if (zero.k2() == Long.MAX_VALUE) {
            return new LinePoint[] {LinePoint.upper(zero.k1(), zero.a() + 1)};
        }
        return new LinePoint[] {LinePoint.upper(zero.k1(), zero.a() + 1), LinePoint.lower(zero.k2() + 1, zero.a())};
    }

    /**
     * A message sent at node reading {@code s} and received when the parent's continuous clock is
     * below {@code parentUpper} (e.g. {@code r + 1} for a receive stamped {@code r} on the parent):
     * {@code c(s) ≤ c(N(t_send)) < P(t_recv) < parentUpper}.
     */
    public static LinePoint sentFromNode(long s, long parentUpper) {
        return LinePoint.upper(s, parentUpper);
    }

    /**
     * A message sent when the parent's continuous clock was at least {@code parentLower} (e.g. the
     * parent stamp {@code s}) and received at node reading {@code r}:
     * {@code c(r + 1) > c(N(t_recv)) = P(t_recv) > P(t_send) ≥ parentLower}.
     */
    public static LinePoint receivedByNode(long r, long parentLower) {
        return LinePoint.lower(r + 1, parentLower);
    }
}
