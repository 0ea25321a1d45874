package dev.dprof.calibrator.estimate;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * The set of lines {@code c(x) = α + F·x} that satisfy every {@link LinePoint}: a convex polygon
 * in the {@code (α, F)} plane (DESIGN.md "Tightest sound conversion"; the paper's Alg. 3 and 4
 * taken together). Computed exactly by clipping a box with one half-plane per point
 * (Sutherland–Hodgman); the tightest sound bound of {@code c(x)} is the minimum and maximum of
 * {@code α + F·x} over the polygon, attained at its vertices — see {@link Envelope}.
 *
 * <p>The box is the one assumption beyond the points: {@code F ∈ [2⁻¹⁶, 2¹⁶]} (a clock runs
 * forward, and no two clocks differ in rate by more than 65536×). It decides a bound only when
 * the points cannot, i.e. with a single zero; {@link #frequencyBoundedByData()} says whether.
 *
 * <p>An empty polygon proves that no line fits the points: the data contradict the assumption
 * the points were built under (constant relative frequency, or the drift bound).
 *
 * <h2>Implementation notes: exact clipping on the original integers</h2>
 * Each vertex is held as the two sides it lies on ({@link PolygonVertex}), and each position of
 * the polygon also keeps the side its outgoing edge lies on. A clip crosses an edge only where
 * its ends are strictly on opposite sides of the new point's line, so the new vertex is named by
 * that edge's side and the point, and every later test on it is computed from those integers
 * afresh: no clip builds on another's arithmetic, and nothing is reduced by a gcd. The clip
 * follows the rational one it replaced step by step (same vertices in the same order, the same
 * merging of equal neighbours), so the polygon is identical, not merely equivalent.
 */
public final class FeasibleLines {
    static final BigFraction F_MIN = BigFraction.of(BigInteger.ONE, BigInteger.ONE.shiftLeft(HalfPlane.BOX_SLOPE_SHIFT));
    static final BigFraction F_MAX = BigFraction.of(BigInteger.ONE.shiftLeft(HalfPlane.BOX_SLOPE_SHIFT));
    private static final BigFraction ALPHA_LIMIT =
            BigFraction.of(BigInteger.ONE.shiftLeft(HalfPlane.BOX_INTERCEPT_SHIFT));

    private final List<PolygonVertex> vertices;

    private FeasibleLines(List<PolygonVertex> vertices) {
        this.vertices = vertices;
    }

    /** The feasible lines of {@code points}, or empty when none exists. */
    public static Optional<FeasibleLines> of(Collection<LinePoint> points) {
        Clipper clipper = new Clipper(points.size() + 4);
        for (LinePoint p : points) {
            if (!clipper.clip(HalfPlane.of(p), p.lower())) {
                return Optional.empty();
            }
        }
        return Optional.of(new FeasibleLines(clipper.polygon()));
    }

    /**
     * The polygon as it is clipped: vertex {@code i} and the side its edge to vertex
     * {@code i + 1} (cyclically) lies on. Two buffers, swapped per clip.
     */
    private static final class Clipper {
        private PolygonVertex[] vertices;
        private HalfPlane[] edges;
        private PolygonVertex[] nextVertices;
        private HalfPlane[] nextEdges;
        private int[] signs;
        private int size;
        private int nextSize;

        Clipper(int capacity) {
            vertices = new PolygonVertex[capacity];
            edges = new HalfPlane[capacity];
            nextVertices = new PolygonVertex[capacity];
            nextEdges = new HalfPlane[capacity];
            signs = new int[capacity];
            // Counter-clockwise in (α, F): along F = F_MIN, up α = +limit, back along F = F_MAX, down α = −limit.
            HalfPlane[] box = {
                HalfPlane.SLOPE_MIN, HalfPlane.INTERCEPT_MAX, HalfPlane.SLOPE_MAX, HalfPlane.INTERCEPT_MIN};
            for (int i = 0; i < 4; i++) {
                vertices[i] = PolygonVertex.of(box[(i + 3) % 4], box[i]);
                edges[i] = box[i];
            }
            size = 4;
        }

        /** Sutherland–Hodgman against one half-plane; false when nothing is left. */
        boolean clip(HalfPlane side, boolean lower) {
            int n = size;
            if (signs.length < n) {
                signs = new int[2 * n];
            }
            for (int i = 0; i < n; i++) {
                int s = vertices[i].valueSign(side.x, side.y);
                signs[i] = lower ? s : -s;
                if (s == 0) {
                    vertices[i].addThrough(side);
                }
            }
            ensureNextCapacity(2 * n);
            nextSize = 0;
            for (int i = 0; i < n; i++) {
                int j = i + 1 == n ? 0 : i + 1;
                int sa = signs[i];
                int sb = signs[j];
                HalfPlane edge = edges[i];
                if (sa >= 0) {
                    // The edge out of a vertex kept on the line leads to a vertex on the line when b is cut off.
                    emit(vertices[i], sa > 0 || sb >= 0 ? edge : side);
                }
                if (sa * sb < 0) {
                    // Leaving the half-plane the polygon continues along the new side; entering, along the old edge.
                    emit(PolygonVertex.of(edge, side), sa > 0 ? side : edge);
                }
            }
            if (nextSize > 1 && nextVertices[0].sameAs(nextVertices[nextSize - 1])) {
                nextVertices[0].absorb(nextVertices[nextSize - 1]);
                nextSize--;
            }
            PolygonVertex[] v = vertices;
            vertices = nextVertices;
            nextVertices = v;
            HalfPlane[] e = edges;
            edges = nextEdges;
            nextEdges = e;
            size = nextSize;
            Arrays.fill(nextVertices, 0, n, null);
            return size > 0;
        }

        /** Appends a vertex unless it equals the last one; then that one's edge becomes this one's. */
        private void emit(PolygonVertex v, HalfPlane edge) {
            if (nextSize > 0 && nextVertices[nextSize - 1].sameAs(v)) {
                nextVertices[nextSize - 1].absorb(v);
                nextEdges[nextSize - 1] = edge;
                return;
            }
            nextVertices[nextSize] = v;
            nextEdges[nextSize] = edge;
            nextSize++;
        }

        private void ensureNextCapacity(int capacity) {
            if (nextVertices.length < capacity) {
                nextVertices = Arrays.copyOf(nextVertices, capacity);
                nextEdges = Arrays.copyOf(nextEdges, capacity);
            }
            if (vertices.length < capacity) {
                vertices = Arrays.copyOf(vertices, capacity);
                edges = Arrays.copyOf(edges, capacity);
            }
        }

        List<PolygonVertex> polygon() {
            return List.of(Arrays.copyOf(vertices, size));
        }
    }

    List<PolygonVertex> vertices() {
        return vertices;
    }

    /** The smallest feasible relative frequency. */
    public BigFraction minFrequency() {
        return vertices.stream().min(PolygonVertex::compareSlope).orElseThrow().f();
    }

    /** The largest feasible relative frequency. */
    public BigFraction maxFrequency() {
        return vertices.stream().max(PolygonVertex::compareSlope).orElseThrow().f();
    }

    /** Whether the points themselves bound the frequency, rather than the box. */
    public boolean frequencyBoundedByData() {
        return minFrequency().compareTo(F_MIN) > 0 && maxFrequency().compareTo(F_MAX) < 0
                && vertices.stream().noneMatch(v -> v.alpha().abs().compareTo(ALPHA_LIMIT) == 0);
    }

    /** The exact minimum of {@code c(x)} over all feasible lines. */
    public BigFraction lowest(long x) {
        BigFraction bx = BigFraction.of(x);
        return vertices.stream().map(v -> v.at(bx)).min(Comparator.naturalOrder()).orElseThrow();
    }

    /** The exact maximum of {@code c(x)} over all feasible lines. */
    public BigFraction highest(long x) {
        BigFraction bx = BigFraction.of(x);
        return vertices.stream().map(v -> v.at(bx)).max(Comparator.naturalOrder()).orElseThrow();
    }
}
