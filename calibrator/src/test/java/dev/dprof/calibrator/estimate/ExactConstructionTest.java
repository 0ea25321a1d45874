package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;

/**
 * The construction on the sides' own integers ({@link FeasibleLines}, {@link Envelope}) against
 * the reduced-fraction oracle ({@link ReferenceFeasibleLines}): on generated point sets — zeros
 * and messages at realistic magnitudes with and without drift slack, and the degenerate shapes
 * (one zero, collinear and touching points, equal x, contradictions, tiny integer grids where
 * ties are everywhere, ticks near ±2⁶³) — both give the same emptiness, the same vertices in the
 * same order, and the same envelope arrays for several centers.
 */
class ExactConstructionTest {
    /** Generated sets per kind; seeds are fixed so a failure reproduces. */
    private static final int SETS = 400;

    @Test
    void zerosAtRealisticMagnitudes() {
        checkKind(1, random -> zeros(random, 2 + random.nextInt(9), false, 0));
    }

    @Test
    void zerosWithDriftSlack() {
        checkKind(2, random -> zeros(random, 2 + random.nextInt(9), true, 0));
    }

    @Test
    void zerosWithMessages() {
        checkKind(3, random -> zeros(random, 2 + random.nextInt(5), random.nextBoolean(), 5 + random.nextInt(60)));
    }

    @Test
    void oneZeroOnlyIsBoundedByTheBox() {
        checkKind(4, random -> zeros(random, 1, random.nextBoolean(), random.nextInt(3)));
    }

    @Test
    void collinearAndTouchingPoints() {
        checkKind(5, ExactConstructionTest::collinear);
    }

    @Test
    void tinyGridsFullOfTies() {
        checkKind(6, ExactConstructionTest::grid);
    }

    @Test
    void contradictionsGiveNoPolygon() {
        int empty = checkKind(7, random -> {
            List<LinePoint> points = zeros(random, 2 + random.nextInt(4), false, 0);
            LinePoint p = points.get(random.nextInt(points.size()));
            // A point on the other side of p by a margin: sometimes still feasible, often not.
            long margin = random.nextLong(-5, 2_000_000);
            points.add(random.nextInt(points.size() + 1),
                    new LinePoint(p.x(), p.lower() ? p.y() - margin : p.y() + margin, !p.lower()));
            return points;
        });
        assertTrue(empty > SETS / 4, "only " + empty + " contradictions generated");
    }

    @Test
    void ticksNearTheEndsOfTheLongRange() {
        checkKind(8, random -> {
            long base = random.nextBoolean() ? Long.MAX_VALUE - random.nextLong(1L << 40)
                    : Long.MIN_VALUE + random.nextLong(1L << 40);
            List<LinePoint> points = new ArrayList<>();
            int n = 2 + random.nextInt(8);
            for (int i = 0; i < n; i++) {
                // x near one end, y near either: differences overflow 64 bits, slopes stay in the box.
                long x = random.nextBoolean() ? base - random.nextLong(1L << 30) : -base + random.nextLong(1L << 30);
                long y = x / (1 + random.nextInt(3)) + random.nextLong(-1_000_000, 1_000_000);
                points.add(new LinePoint(x, y, random.nextBoolean()));
            }
            return points;
        });
    }

    @Test
    void prunedPointsAsWindowsUseThem() {
        checkKind(9, random -> PointHull.prune(zeros(random, 2 + random.nextInt(6), random.nextBoolean(),
                20 + random.nextInt(200))));
    }

    /** Checks {@link #SETS} sets of one kind; returns how many had no feasible line. */
    private static int checkKind(long seed, Function<SplittableRandom, List<LinePoint>> generator) {
        SplittableRandom seeds = new SplittableRandom(seed);
        int empty = 0;
        for (int set = 0; set < SETS; set++) {
            long setSeed = seeds.nextLong();
            SplittableRandom random = new SplittableRandom(setSeed);
            List<LinePoint> points = generator.apply(random);
            if (!check(points, random, "seed " + seed + " set " + set + " (" + setSeed + "): " + points)) {
                empty++;
            }
        }
        return empty;
    }

    /** Asserts the two constructions agree; returns whether the polygon is non-empty. */
    private static boolean check(List<LinePoint> points, SplittableRandom random, String where) {
        Optional<FeasibleLines> exact = FeasibleLines.of(points);
        Optional<ReferenceFeasibleLines> reference = ReferenceFeasibleLines.of(points);
        assertEquals(reference.isPresent(), exact.isPresent(), "emptiness, " + where);
        if (reference.isEmpty()) {
            return false;
        }
        List<ReferenceFeasibleLines.Vertex> expected = reference.get().vertices();
        List<PolygonVertex> actual = exact.get().vertices();
        assertEquals(expected, actual.stream().map(v -> new ReferenceFeasibleLines.Vertex(v.alpha(), v.f())).toList(),
                "vertices, " + where);
        long xs = points.stream().mapToLong(LinePoint::x).min().orElse(0);
        long xe = points.stream().mapToLong(LinePoint::x).max().orElse(0);
        List<Long> centers = new ArrayList<>(List.of(xs / 2 + xe / 2, xs, xe, 0L));
        centers.add(xs + random.nextLong(Math.max(1, xe / 2 - xs / 2)));
        for (LinePoint p : points.subList(0, Math.min(3, points.size()))) {
            centers.add(p.x() + random.nextLong(-2, 3)); // near a point
        }
        for (int i = 0; i < 3; i++) {
            // Halfway between two points: anchors on both sides at the same distance.
            long a = points.get(random.nextInt(points.size())).x();
            long b = points.get(random.nextInt(points.size())).x();
            centers.add((a >> 1) + (b >> 1) + (a & b & 1));
        }
        for (ReferenceFeasibleLines.Vertex v : expected.subList(0, Math.min(4, expected.size()))) {
            // Halfway between two points on a vertex's line: its anchor is decided by the points' order.
            List<Long> on = points.stream().filter(p -> v.at(BigFraction.of(p.x())).equals(BigFraction.of(p.y())))
                    .map(LinePoint::x).distinct().toList();
            if (on.size() >= 2) {
                long a = on.get(random.nextInt(on.size()));
                long b = on.get(random.nextInt(on.size()));
                centers.add((a >> 1) + (b >> 1) + (a & b & 1));
            }
        }
        for (long center : centers) {
            for (boolean lower : new boolean[] {true, false}) {
                ReferenceFeasibleLines.EnvelopeArrays want = reference.get().envelope(points, lower, center);
                Envelope got = Envelope.of(exact.get(), lower, center);
                String what = (lower ? "lower" : "upper") + " envelope at center " + center + ", " + where;
                int n = got.pieces();
                assertEquals(want.start().length, n, "pieces of the " + what);
                long[] start = new long[n];
                long[] anchor = new long[n];
                long[] value = new long[n];
                long[][] slope = new long[4][n];
                for (int p = 0; p < n; p++) {
                    start[p] = p == 0 ? Long.MIN_VALUE : got.nextStart(p - 1);
                    anchor[p] = got.anchor(p);
                    value[p] = got.exact(p) ? got.value(p) : ReferenceFeasibleLines.NOT_EXACT;
                    // The lower envelope rounds down for d ≥ 0, the upper for d < 0.
                    slope[0][p] = got.slopeInt(p, lower);
                    slope[1][p] = got.slopeFrac(p, lower);
                    slope[2][p] = got.slopeInt(p, !lower);
                    slope[3][p] = got.slopeFrac(p, !lower);
                }
                assertArrayEquals(want.start(), start, "starts of the " + what);
                assertArrayEquals(want.anchor(), anchor, "anchors of the " + what);
                assertArrayEquals(want.value(), value, "values of the " + what);
                assertArrayEquals(want.slopeDownInt(), slope[0], "slopes of the " + what);
                assertArrayEquals(want.slopeDownFrac(), slope[1], "slopes of the " + what);
                assertArrayEquals(want.slopeUpInt(), slope[2], "slopes of the " + what);
                assertArrayEquals(want.slopeUpFrac(), slope[3], "slopes of the " + what);
            }
        }
        return true;
    }

    /**
     * Zeros of a line of slope 1/3..3 at ticks up to ±2⁶², widths 10..10⁶, a few seconds apart at
     * GHz rates; with {@code drift}, the points relaxed as {@link Window} relaxes them; with
     * {@code messages}, matched messages of 1..50 µs latency in both directions.
     */
    private static List<LinePoint> zeros(SplittableRandom random, int count, boolean drift, int messages) {
        double slope = 1.0 / 3 + random.nextDouble() * (3 - 1.0 / 3);
        if (random.nextInt(4) == 0) {
            slope = 1 + random.nextInt(3); // an integer rate: exact coincidences become likely
        }
        long x0 = random.nextLong(-(1L << 62), 1L << 62);
        long y0 = random.nextLong(-(1L << 61), 1L << 61);
        long spacing = 1 + random.nextLong(30_000_000_000L);
        List<LinePoint> points = new ArrayList<>();
        long t = x0;
        for (int i = 0; i < count; i++) {
            t += random.nextLong(spacing / 2 + 1, spacing + 2);
            long width = widthBetween(random, 10, 1_000_000);
            long k1 = t - random.nextLong(width + 1);
            long k2 = k1 + width;
            long a = y0 + Math.round((t - x0) * slope);
            points.add(LinePoint.upper(k1, a + 1));
            points.add(LinePoint.lower(k2 + 1, a));
        }
        long first = x0;
        long last = t;
        for (int i = 0; i < messages; i++) {
            long at = first + random.nextLong(Math.max(1, last - first + spacing)) - spacing / 2;
            long latency = Math.round((1_000 + random.nextLong(50_000)) * slope);
            long y = y0 + Math.round((at - x0) * slope);
            // Up: sent at node tick `at`, received by the parent after the latency; down: the reverse.
            points.add(random.nextBoolean() ? LinePoint.upper(at, y + latency) : LinePoint.lower(at, y - latency));
        }
        if (drift) {
            double halfCurvature = Math.pow(10, -18 + random.nextDouble() * 9);
            long xs = points.stream().mapToLong(LinePoint::x).min().orElseThrow();
            long xe = points.stream().mapToLong(LinePoint::x).max().orElseThrow();
            List<LinePoint> relaxed = new ArrayList<>();
            for (LinePoint p : points) {
                double s = halfCurvature * Math.abs((double) p.x() - xs) * Math.abs((double) p.x() - xe);
                relaxed.add(p.relaxed(s >= 1e15 ? (long) 1e15 : (long) Math.ceil(s) + 1));
            }
            points = relaxed;
        }
        shuffleSome(random, points);
        return points;
    }

    /** Points exactly on one or two lines: polygons that shrink to a segment or a single line. */
    private static List<LinePoint> collinear(SplittableRandom random) {
        long num = 1 + random.nextInt(5);
        long den = 1 + random.nextInt(5);
        long x0 = random.nextLong(-(1L << 50), 1L << 50);
        long y0 = random.nextLong(-(1L << 50), 1L << 50);
        long step = den * (1 + random.nextLong(1_000_000));
        List<LinePoint> points = new ArrayList<>();
        int n = 2 + random.nextInt(8);
        for (int i = 0; i < n; i++) {
            long x = x0 + step * random.nextInt(-20, 20);
            long y = y0 + (x - x0) / den * num;
            int kind = random.nextInt(5);
            if (kind == 0) {
                points.add(LinePoint.lower(x, y));
                points.add(LinePoint.upper(x, y)); // touching: the line is pinned at x
            } else if (kind == 1) {
                points.add(LinePoint.lower(x, y - random.nextInt(3)));
            } else if (kind == 2) {
                points.add(LinePoint.upper(x, y + random.nextInt(3)));
            } else if (kind == 3) {
                points.add(new LinePoint(x, y, random.nextBoolean()));
            } else {
                points.add(new LinePoint(x, y + random.nextLong(-step, step), random.nextBoolean()));
            }
        }
        shuffleSome(random, points);
        return points;
    }

    /** Small integer points, often at equal x and on shared lines, with repeated points. */
    private static List<LinePoint> grid(SplittableRandom random) {
        List<LinePoint> points = new ArrayList<>();
        int n = 1 + random.nextInt(10);
        int span = 2 + random.nextInt(30);
        for (int i = 0; i < n; i++) {
            long x = random.nextInt(-span, span);
            long y = x * (1 + random.nextInt(2)) + random.nextInt(-4, 5);
            points.add(new LinePoint(x, y, random.nextBoolean()));
            if (random.nextInt(6) == 0) {
                points.add(points.get(random.nextInt(points.size())));
            }
            if (random.nextInt(6) == 0) {
                LinePoint q = points.get(random.nextInt(points.size()));
                points.add(new LinePoint(q.x(), q.y(), !q.lower())); // pins the line at q
            }
        }
        return points;
    }

    private static long widthBetween(SplittableRandom random, long min, long max) {
        return Math.round(min * Math.pow((double) max / min, random.nextDouble()));
    }

    private static void shuffleSome(SplittableRandom random, List<LinePoint> points) {
        if (random.nextBoolean()) {
            for (int i = points.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                LinePoint p = points.get(i);
                points.set(i, points.get(j));
                points.set(j, p);
            }
        }
    }
}
