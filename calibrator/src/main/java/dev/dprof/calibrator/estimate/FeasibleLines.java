package dev.dprof.calibrator.estimate;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * The set of lines {@code c(x) = α + F·x} that satisfy every {@link LinePoint}: a convex polygon
 * in the {@code (α, F)} plane (DESIGN.md "Tightest sound conversion"; the paper's Alg. 3 and 4
 * taken together). Computed exactly, with rational vertices, by clipping a box with one
 * half-plane per point; the tightest sound bound of {@code c(x)} is the minimum and maximum of
 * {@code α + F·x} over the polygon, attained at its vertices — see {@link Envelope}.
 *
 * <p>The box is the one assumption beyond the points: {@code F ∈ [2⁻¹⁶, 2¹⁶]} (a clock runs
 * forward, and no two clocks differ in rate by more than 65536×). It decides a bound only when
 * the points cannot, i.e. with a single zero; {@link #frequencyBoundedByData()} says whether.
 *
 * <p>An empty polygon proves that no line fits the points: the data contradict the assumption
 * the points were built under (constant relative frequency, or the drift bound).
 */
public final class FeasibleLines {
    static final BigFraction F_MIN = BigFraction.of(BigInteger.ONE, BigInteger.ONE.shiftLeft(16));
    static final BigFraction F_MAX = BigFraction.of(BigInteger.ONE.shiftLeft(16));
    private static final BigFraction ALPHA_LIMIT = BigFraction.of(BigInteger.ONE.shiftLeft(100));

    /** A vertex of the polygon: one feasible line. */
    record Vertex(BigFraction alpha, BigFraction f) {
        BigFraction at(BigFraction x) {
            return alpha.add(f.multiply(x));
        }

        // Written out rather than generated: a record's generated equals and hashCode are bound at
        // their first call through method handles whose classes the JDK spins with its ASM, which
        // then costs the consolidator's start C2 compilations (docs/CONFIG.md, "Start-up").
        @Override
        public boolean equals(Object o) {
            return o instanceof Vertex v && alpha.equals(v.alpha) && f.equals(v.f);
        }

        @Override
        public int hashCode() {
            return 31 * alpha.hashCode() + f.hashCode();
        }
    }

    private final List<Vertex> vertices;

    private FeasibleLines(List<Vertex> vertices) {
        this.vertices = vertices;
    }

    /** The feasible lines of {@code points}, or empty when none exists. */
    public static Optional<FeasibleLines> of(Collection<LinePoint> points) {
        List<Vertex> polygon = new ArrayList<>(List.of(
                new Vertex(ALPHA_LIMIT.negate(), F_MIN), new Vertex(ALPHA_LIMIT, F_MIN),
                new Vertex(ALPHA_LIMIT, F_MAX), new Vertex(ALPHA_LIMIT.negate(), F_MAX)));
        for (LinePoint p : points) {
            polygon = clip(polygon, p);
            if (polygon.isEmpty()) {
                return Optional.empty();
            }
        }
        return Optional.of(new FeasibleLines(polygon));
    }

    /** Signed slack of a vertex against a point: ≥ 0 when the vertex satisfies it. */
    private static BigFraction slack(Vertex v, LinePoint p) {
        BigFraction value = v.at(BigFraction.of(p.x())).subtract(p.y());
        return p.lower() ? value : value.negate();
    }

    /** Sutherland–Hodgman against one half-plane, exactly. */
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

    List<Vertex> vertices() {
        return vertices;
    }

    /** The smallest feasible relative frequency. */
    public BigFraction minFrequency() {
        return vertices.stream().map(Vertex::f).min(BigFraction::compareTo).orElseThrow();
    }

    /** The largest feasible relative frequency. */
    public BigFraction maxFrequency() {
        return vertices.stream().map(Vertex::f).max(BigFraction::compareTo).orElseThrow();
    }

    /** Whether the points themselves bound the frequency, rather than the box. */
    public boolean frequencyBoundedByData() {
        return minFrequency().compareTo(F_MIN) > 0 && maxFrequency().compareTo(F_MAX) < 0
                && vertices.stream().noneMatch(v -> v.alpha.abs().compareTo(ALPHA_LIMIT) == 0);
    }

    /** The exact minimum of {@code c(x)} over all feasible lines. */
    public BigFraction lowest(long x) {
        BigFraction bx = BigFraction.of(x);
        return vertices.stream().map(v -> v.at(bx)).min(BigFraction::compareTo).orElseThrow();
    }

    /** The exact maximum of {@code c(x)} over all feasible lines. */
    public BigFraction highest(long x) {
        BigFraction bx = BigFraction.of(x);
        return vertices.stream().map(v -> v.at(bx)).max(BigFraction::compareTo).orElseThrow();
    }
}
