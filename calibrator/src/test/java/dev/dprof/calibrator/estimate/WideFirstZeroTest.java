package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;

/**
 * The agent's exchange before the application's main is measured cold: its zero may be ten
 * thousand times wider than the ones after it (150 ms against 15 µs on a loaded host). It must
 * bound the application's first ticks without widening anything its tight neighbours establish:
 * durations take the intersection of every window's slope bound, and ticks before the second zero
 * the tighter of the first two windows. Node {@code 1.3·t + 777}, parent {@code t}, real ticks in
 * ns, no drift.
 */
class WideFirstZeroTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long WIDE = 150_000_000;
    private static final long TIGHT = 15_000;

    private static long node(long t) {
        return Math.floorDiv(13 * t, 10) + 777;
    }

    @Test
    void aWideFirstZeroBoundsTheStartWithoutWideningTheRest() throws CalibrationException {
        List<Zero> zeros = new ArrayList<>();
        zeros.add(new Zero(0, node(0), WIDE / 3, node(WIDE)));
        for (int i = 1; i <= 5; i++) {
            long t1 = i * SECOND;
            zeros.add(new Zero(i, node(t1), t1 + TIGHT / 2, node(t1 + TIGHT)));
        }
        DomainCalibration ref = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 1e9, Optional.empty(),
                List.of(), true);
        DomainCalibration n = new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", 1.3e9, Optional.empty(),
                zeros, true);
        CalibrationSet set = CalibrationSet.of(List.of(ref, n), new DriftModel.BoundedDrift(1));
        assertEquals(Quality.BOUNDED, set.quality("node"));

        // Durations: the tight windows' slopes, (w1 + w2)/T plus the drift over the span, not w0/T.
        BigFraction[] slope = set.slopeBounds("node");
        assertNotNull(slope);
        double widthPpm = slope[1].subtract(slope[0]).doubleValue() / (1 / 1.3) * 1e6;
        assertTrue(widthPpm < 3 * 2 * TIGHT * 1e6 / SECOND + 20, "slope bound " + widthPpm + " ppm wide");
        assertTrue(slope[0].doubleValue() <= 1 / 1.3 && 1 / 1.3 <= slope[1].doubleValue(), "contains the truth");

        // Ticks between the first two zeros: contained, and the later ones as tight as the second window makes them.
        TickConverter converter = set.converter("node");
        int count = 1000;
        long[] ticks = new long[count];
        long[] reals = new long[count];
        for (int i = 0; i < count; i++) {
            reals[i] = WIDE + (SECOND - WIDE) * i / count;
            ticks[i] = node(reals[i]);
        }
        long[] lo = new long[count];
        long[] hi = new long[count];
        converter.convertSorted(ticks, count, lo, hi);
        for (int i = 0; i < count; i++) {
            assertTrue(converter.convert(ticks[i]));
            assertEquals(converter.lo(), lo[i], "bulk and single agree");
            assertEquals(converter.hi(), hi[i], "bulk and single agree");
            assertTrue(lo[i] <= reals[i] && reals[i] <= hi[i], "tick " + i + " contained");
            double before = (double) (SECOND - reals[i]) / SECOND;
            // the second window's extrapolation: its zeros' widths carried back by the distance, plus drift slack
            assertTrue(hi[i] - lo[i] <= 4 * TIGHT * (1 + 2 * before) + 2_000,
                    "tick " + i + " (" + before + " s before the second zero): width " + (hi[i] - lo[i]));
        }
    }
}
