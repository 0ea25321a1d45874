package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;

/**
 * Small cases whose bounds were computed by hand (the arithmetic is in the comments). Zeros
 * {@code (k1, a, k2)} give the upper point {@code (k1, a+1)} and the lower point
 * {@code (k2+1, a)}; a tick k converts to {@code [floor L(k), ceil U(k+1)]}.
 */
class HandComputedTest {
    static final DomainCalibration REFERENCE = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 1e9,
            Optional.empty(), List.of(), true);

    static DomainCalibration node(String id, String parent, Zero... zeros) {
        return new DomainCalibration(id, Optional.of(parent), "h", "rdtsc", 1e9, Optional.empty(), List.of(zeros), true);
    }

    static CalibrationSet set(DriftModel drift, DomainCalibration... nodes) throws CalibrationException {
        List<DomainCalibration> all = new java.util.ArrayList<>(List.of(nodes));
        all.add(REFERENCE);
        return CalibrationSet.of(all, drift);
    }

    static long[] convert(CalibrationSet set, String domain, long tick) throws CalibrationException {
        TickConverter c = set.converter(domain);
        assertTrue(c.convert(tick), "no bound for " + tick);
        return new long[] {c.lo(), c.hi()};
    }

    // Points: upper (100, 1001), lower (111, 1000), upper (10100, 21001), lower (10111, 21000).
    private static final Zero Z1 = new Zero(0, 100, 1000, 110);
    private static final Zero Z2 = new Zero(1, 10100, 21000, 10110);

    @Test
    void twoZerosBetweenThem() throws CalibrationException {
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1, Z2));
        // L: through the lower points, slope (21000-1000)/(10111-111) = 2: L(5000) = 1000 + 2·4889.
        // U: through the upper points, slope 2: U(5001) = 1001 + 2·4901.
        assertEquals(List.of(10778L, 10803L), List.of(convert(set, "n", 5000)[0], convert(set, "n", 5000)[1]));
    }

    @Test
    void afterTheLastZeroTheLowerBoundUsesTheLowestFrequency() throws CalibrationException {
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1, Z2));
        // Lowest F = (21000-1001)/(10111-100) = 19999/10011 through (10111, 21000):
        // L(20000) = 21000 + 19999·9889/10011 = 40755 + 2806/10011.
        // Highest F = (21001-1000)/(10100-111) = 20001/9989 through (10100, 21001):
        // U(20001) = 21001 + 20001·9901/9989 = 40825 + 7965/9989.
        long[] b = convert(set, "n", 20000);
        assertEquals(40755, b[0]);
        assertEquals(40826, b[1]);
    }

    @Test
    void beforeTheFirstZeroTheLowerBoundUsesTheHighestFrequency() throws CalibrationException {
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1, Z2));
        // L(0) = 1000 − 111·20001/9989 = 777.74… (the paper's §4.3 formula, with the lowest
        // frequency, would give 1000 − 111·19999/10011 = 778.26…, above the true minimum).
        // U(1) = 1001 − 99·19999/10011 = 803.22…
        long[] b = convert(set, "n", 0);
        assertEquals(777, b[0]);
        assertEquals(804, b[1]);
    }

    @Test
    void frequencyBoundsAreExactRationals() throws CalibrationException {
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1, Z2));
        DomainConversion c = set.conversion("n").orElseThrow();
        // Mean over the span: [(21000-1000-1)/(10111-100), (21000+1-1000)/(10100-111)].
        assertEquals(BigFraction.of(19999, 10011), c.meanFrequencyLow());
        assertEquals(BigFraction.of(20001, 9989), c.meanFrequencyHigh());
        assertEquals(Quality.BOUNDED, c.quality());
    }

    @Test
    void oneZeroGivesSoundButWideBoundsAndSaysSo() throws CalibrationException {
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1));
        assertEquals(Quality.SINGLE_ZERO, set.quality("n"));
        // At the zero itself: L(105) ≥ ... the line passes ≤ 1001 at 100 and ≥ 1000 at 111;
        // with F ≤ 2^16 its value at 105 is ≥ 1000 − 6·65536 and ≤ 1001 + 6·65536.
        long[] b = convert(set, "n", 105);
        assertEquals(1000 - 6 * 65536, b[0]);
        assertEquals(1001 + 6 * 65536, b[1]);
    }

    @Test
    void contradictoryZerosAreReportedNeverBounded() throws CalibrationException {
        // The third zero lies far off the line of the first two: no constant frequency fits.
        Zero z3 = new Zero(2, 20100, 20000, 20110);
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1, Z2, z3));
        assertEquals(Quality.CONTRADICTED, set.quality("n"));
        assertFalse(set.converter("n").convert(5000));
        // Under bounded drift the three zeros together refute the assumption (the parent's clock
        // runs backwards between the last two): the whole domain says so and nothing is bounded,
        // not even the stretch between the first two zeros, which rests on the same assumption.
        CalibrationSet drift = set(new DriftModel.BoundedDrift(1), node("n", "ref", Z1, Z2, z3));
        assertEquals(Quality.CONTRADICTED, drift.quality("n"));
        assertFalse(drift.converter("n").convert(5000));
        assertFalse(drift.converter("n").convert(15000));
        DomainConversion c = drift.conversion("n").orElseThrow();
        assertTrue(c.contradiction().orElseThrow().contains("epochs 0–2"), c.contradiction().orElseThrow());
        assertTrue(c.fallback().orElseThrow().startsWith("no bound"), c.fallback().orElseThrow());
        assertEquals(null, drift.slopeBounds("n"));
    }

    @Test
    void aTwoLevelTreeComposesSoundly() throws CalibrationException {
        // m runs at twice n's rate: zeros (k1, a, k2) of m against n with a ≈ 2·k.
        Zero m1 = new Zero(0, 50, 100, 60);
        Zero m2 = new Zero(1, 5050, 10100, 5060);
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1, Z2), node("m", "n", m1, m2));
        // m → n at tick 2000: lower points (61, 100), (5061, 10100): slope 2, L(2000) = 100 + 2·1939 = 3978;
        // upper points (50, 101), (5050, 10101): U(2001) = 101 + 2·1951 = 4003.
        // n → ref: L(3978) = 1000 + 2·3867 = 8734 (through the lower points of n, slope 2);
        // U(4003) = 1001 + 2·3903 = 8807.
        long[] b = convert(set, "m", 2000);
        assertEquals(8734, b[0]);
        assertEquals(8807, b[1]);
    }

    @Test
    void theReferenceConvertsToItself() throws CalibrationException {
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", Z1, Z2));
        long[] b = convert(set, "ref", 123456789);
        assertEquals(123456789, b[0]);
        assertEquals(123456789, b[1]);
        assertEquals(Quality.REFERENCE, set.quality("ref"));
    }

    @Test
    void degenerateZerosOfZeroWidthStillConvert() throws CalibrationException {
        // k1 = k2: the tightest zero integer readings allow.
        CalibrationSet set = set(new DriftModel.Constant(), node("n", "ref", new Zero(0, 100, 1000, 100),
                new Zero(1, 10100, 21000, 10100)));
        long[] b = convert(set, "n", 5100);
        // Lower points (101, 1000), (10101, 21000): L(5100) = 1000 + 2·4999 = 10998;
        // upper points (100, 1001), (10100, 21001): U(5101) = 1001 + 2·5001 = 11003.
        assertEquals(10998, b[0]);
        assertEquals(11003, b[1]);
    }
}
