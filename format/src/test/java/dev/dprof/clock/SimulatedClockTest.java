package dev.dprof.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SimulatedClockTest {

    @Test
    void theLinearPartIsExactForTicksOfAnySize() {
        SimulatedClock clock = SimulatedClock.parse("rate=1.37,offset=-123456789");
        BigInteger rateQ32 = BigInteger.valueOf(Math.round(1.37 * 4294967296.0));
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            long t = random.nextLong(1L << 61);
            long expected = BigInteger.valueOf(t).multiply(rateQ32).shiftRight(32).longValueExact() - 123456789;
            assertEquals(expected, clock.apply(t));
        }
    }

    @Test
    void driftFollowsTheStatedSine() {
        SimulatedClock clock = SimulatedClock.parse("rate=1,drift-ppm=50,drift-period-s=600,tsc-hz=1000000000");
        long period = 600_000_000_000L;
        double amplitude = 50e-6 * period / (2 * Math.PI);
        assertEquals(0, clock.apply(0));
        assertEquals(period / 2 + (long) Math.floor(2 * amplitude), clock.apply(period / 2));
        assertEquals(period, clock.apply(period));
    }

    @Test
    void withDriftTheClockNeverRunsBackwards() {
        SimulatedClock clock = SimulatedClock.parse("rate=1.23,offset=5,drift-ppm=500,drift-period-s=0.001");
        long previous = clock.apply(0);
        for (long t = 1; t < 3_000_000; t++) {
            long now = clock.apply(t);
            assertTrue(now >= previous, "at " + t);
            previous = now;
        }
    }

    @Test
    void specRoundTripsAndBadSpecsSayWhy() {
        SimulatedClock clock = SimulatedClock.parse("rate=1.3, offset=42, drift-ppm=50, drift-period-s=600, tsc-hz=2900000000");
        assertEquals(clock, SimulatedClock.parse(clock.spec()));
        assertEquals("unknown key 'rat' (expected rate, offset, drift-ppm, drift-period-s, tsc-hz)",
                assertThrows(IllegalArgumentException.class, () -> SimulatedClock.parse("rat=1")).getMessage());
        assertEquals("bad number for rate: 'x'",
                assertThrows(IllegalArgumentException.class, () -> SimulatedClock.parse("rate=x")).getMessage());
        assertEquals("drift-period-s must be > 0 when drift-ppm is set",
                assertThrows(IllegalArgumentException.class, () -> SimulatedClock.parse("drift-ppm=5")).getMessage());
    }
}
