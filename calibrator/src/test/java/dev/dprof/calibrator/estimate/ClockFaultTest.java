package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A domain whose agent found its counter not one clock gets no bound, says why, and leaves the
 * other domains as they were (docs/BOUNDS.md, "The counter is checked").
 */
class ClockFaultTest {
    private static final DriftModel MODEL = new DriftModel.BoundedDrift(1);
    private static final String FAULT = "the TSC is not invariant: /proc/cpuinfo lacks nonstop_tsc on some CPU";

    /** Reference "ref", and "a" and "b" below it, each with three zeros of a clock at the reference's rate. */
    private static CalibrationSet set() throws CalibrationException {
        DomainCalibration ref = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 1e9, Optional.empty(),
                List.of(), true);
        return CalibrationSet.of(List.of(ref, node("a", 5_000), node("b", -70_000)), MODEL);
    }

    private static DomainCalibration node(String id, long offset) {
        List<Zero> zeros = List.of(new Zero(0, 1_000_000, 1_000_500 + offset, 1_001_000),
                new Zero(1, 2_000_000_000L, 2_000_000_500L + offset, 2_000_001_000L),
                new Zero(2, 4_000_000_000L, 4_000_000_500L + offset, 4_000_001_000L));
        return new DomainCalibration(id, Optional.of("ref"), "h", "rdtsc", 1e9, Optional.empty(), zeros, true);
    }

    @Test
    void aFaultyDomainHasNoBoundAndSaysWhy() throws CalibrationException {
        CalibrationSet set = set().withClockFaults(Map.of("a", FAULT));
        assertEquals(Quality.CONTRADICTED, set.quality("a"));
        TickConverter a = set.converter("a");
        assertFalse(a.convert(3_000_000_000L));
        assertEquals(1, a.unbounded());
        assertNull(set.slopeBounds("a"));
        DomainConversion c = set.conversion("a").orElseThrow();
        assertEquals(Optional.of("the counter is not one clock: " + FAULT), c.contradiction());
        assertEquals(Optional.of("no bound for any tick of this domain (its ticks are not readings of one steady clock)"),
                c.fallback());
        assertEquals(Optional.of(FAULT), set.clockFault("a"));

        assertEquals(Quality.BOUNDED, set.quality("b"), "another domain keeps its bounds");
        assertTrue(set.converter("b").convert(3_000_000_000L));
        assertEquals(Optional.empty(), set.clockFault("b"));
    }

    /** Matched messages rebuild the conversions: the fault stays. */
    @Test
    void theFaultOutlivesExtraPoints() throws CalibrationException {
        CalibrationSet set = set().withClockFaults(Map.of("a", FAULT))
                .withPoints(Map.of("b", List.of(new LinePoint(3_000_000_000L, 2_999_920_000L, true))));
        assertEquals(Quality.CONTRADICTED, set.quality("a"));
        assertFalse(set.converter("a").convert(3_000_000_000L));
    }

    /** Every conversion ends on the reference: its fault takes every domain's bounds, its own ticks' too. */
    @Test
    void aFaultyReferenceTakesEveryBound() throws CalibrationException {
        CalibrationSet set = set().withClockFaults(Map.of("ref", FAULT));
        for (String d : List.of("ref", "a", "b")) {
            assertEquals(Quality.CONTRADICTED, set.quality(d), d);
            TickConverter c = set.converter(d);
            long[] lo = new long[2];
            long[] hi = new long[2];
            assertEquals(0, c.convertSorted(new long[] {2_000_000_000L, 3_000_000_000L}, 2, lo, hi), d);
            assertEquals(Long.MIN_VALUE, lo[0]);
            assertEquals(Long.MAX_VALUE, hi[1]);
        }
        assertEquals(Optional.of("its reference ref is not: " + FAULT), set.clockFault("a"));
    }

    @Test
    void noFaultOrAnUnknownDomainChangesNothing() throws CalibrationException {
        CalibrationSet set = set();
        assertSame(set, set.withClockFaults(Map.of()));
        assertSame(set, set.withClockFaults(Map.of("elsewhere", FAULT)));
        assertEquals(Quality.BOUNDED, set.quality("a"));
    }
}
