package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PointHullTest {

    @Test
    void pruningKeepsTheFeasibleSetExactly() {
        SplittableRandom random = new SplittableRandom(3);
        for (int trial = 0; trial < 200; trial++) {
            List<LinePoint> points = new ArrayList<>();
            long slope = 1 + random.nextInt(3);
            for (int i = 0; i < 60; i++) {
                long x = random.nextLong(1_000_000);
                long noise = 1 + random.nextInt(5_000);
                boolean lower = random.nextBoolean();
                points.add(new LinePoint(x, slope * x + (lower ? -noise : noise), lower));
            }
            List<LinePoint> pruned = PointHull.prune(points);
            assertTrue(pruned.size() <= points.size());
            FeasibleLines all = FeasibleLines.of(points).orElseThrow();
            FeasibleLines kept = FeasibleLines.of(pruned).orElseThrow();
            for (long x : new long[] {-500_000, 0, 123_456, 999_999, 3_000_000}) {
                assertEquals(all.lowest(x), kept.lowest(x));
                assertEquals(all.highest(x), kept.highest(x));
            }
        }
    }

    @Test
    void sortingOrdersByXThenMostConstrainingFirst() {
        SplittableRandom random = new SplittableRandom(4);
        for (int trial = 0; trial < 300; trial++) {
            int n = random.nextInt(200);
            LinePoint[] points = new LinePoint[n];
            for (int i = 0; i < n; i++) {
                long x = random.nextBoolean() ? random.nextLong(-20, 20) : random.nextLong();
                points[i] = new LinePoint(x, random.nextLong(-3, 3), true);
            }
            for (boolean upperHull : new boolean[] {true, false}) {
                List<LinePoint> expected = new ArrayList<>(List.of(points));
                expected.sort(java.util.Comparator.comparingLong(LinePoint::x).thenComparing(upperHull
                        ? java.util.Comparator.comparingLong(LinePoint::y).reversed()
                        : java.util.Comparator.comparingLong(LinePoint::y)));
                LinePoint[] sorted = points.clone();
                PointHull.sort(sorted, upperHull);
                assertEquals(expected, List.of(sorted));
            }
        }
    }

    @Test
    void crossProductsOfHugeTicksDoNotOverflow() {
        long big = 1L << 61;
        assertEquals(1, PointHull.compareProducts(big, 4, big, 3));
        assertEquals(-1, PointHull.compareProducts(-big, 4, big, 3));
        assertEquals(0, PointHull.compareProducts(big, 6, 3 * big, 2));
    }
}
