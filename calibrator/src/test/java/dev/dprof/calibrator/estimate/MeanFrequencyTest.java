package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;

/**
 * The mean-frequency bounds are chosen by cross-multiplied integers and reduced only when asked
 * for: the same pair as reduced fractions choose, and the double the drift slack uses is the
 * reduced fraction's.
 */
class MeanFrequencyTest {

    @Test
    void theNarrowestPairIsTheOneReducedFractionsPick() throws CalibrationException {
        SplittableRandom random = new SplittableRandom(12);
        for (int trial = 0; trial < 500; trial++) {
            List<Zero> zeros = new ArrayList<>();
            long k = random.nextLong(-(1L << 50), 1L << 50);
            long a = random.nextLong(-(1L << 50), 1L << 50);
            double slope = 0.5 + random.nextDouble() * 2;
            int n = 1 + random.nextInt(9);
            for (int i = 0; i < n; i++) {
                long step = 1 + random.nextLong(random.nextBoolean() ? 1_000 : 20_000_000_000L);
                k += step;
                a += Math.round(step * slope);
                long width = 1 + random.nextLong(random.nextBoolean() ? 3 : 1_000_000);
                zeros.add(new Zero(i, k - width / 2, a, k - width / 2 + width));
            }
            CalibrationSet set = HandComputedTest.set(new DriftModel.BoundedDrift(1),
                    HandComputedTest.node("n", "ref", zeros.toArray(Zero[]::new)));
            DomainConversion c = set.conversion("n").orElseThrow();
            BigFraction[] expected = narrowestByFractions(zeros);
            assertEquals(expected == null ? null : expected[0], c.meanFrequencyLow(), "trial " + trial);
            assertEquals(expected == null ? null : expected[1], c.meanFrequencyHigh(), "trial " + trial);
        }
    }

    @Test
    void aQuotientOfExactDoublesIsTheReducedFractionsDouble() {
        SplittableRandom random = new SplittableRandom(10);
        for (int i = 0; i < 100_000; i++) {
            long num = random.nextLong(-(1L << 53), 1L << 53);
            long den = 1 + random.nextLong(1L << 53);
            assertEquals(BigFraction.of(num, den).doubleValue(), (double) num / den, num + "/" + den);
        }
    }

    /** The selection as first written, every bound and width a reduced fraction. */
    private static BigFraction[] narrowestByFractions(List<Zero> unsorted) {
        List<Zero> zeros = new ArrayList<>(unsorted);
        zeros.sort(Comparator.comparingLong(Zero::k1));
        BigFraction[] best = null;
        BigFraction bestWidth = null;
        int n = zeros.size();
        for (int i = 0; i < Math.min(DomainConversion.EDGE_CANDIDATES, n); i++) {
            for (int j = Math.max(i + 1, n - DomainConversion.EDGE_CANDIDATES); j < n; j++) {
                Zero a = zeros.get(i);
                Zero b = zeros.get(j);
                if (b.k1() - a.k2() - 1 <= 0) {
                    continue;
                }
                BigFraction lo = BigFraction.of(b.a() - a.a() - 1).divide(b.k2() + 1 - a.k1());
                BigFraction hi = BigFraction.of(b.a() + 1 - a.a()).divide(b.k1() - a.k2() - 1);
                BigFraction width = hi.subtract(lo);
                if (bestWidth == null || width.compareTo(bestWidth) < 0) {
                    best = new BigFraction[] {lo, hi};
                    bestWidth = width;
                }
            }
        }
        return best;
    }
}
