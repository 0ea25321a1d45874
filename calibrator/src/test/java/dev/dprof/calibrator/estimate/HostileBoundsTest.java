package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;

/**
 * Property tests with hostile parameters: relative rates from 2⁻¹⁴ to 2¹⁴, readings
 * within 2⁴⁰ of ±2⁶³, 1 to 6 zeros at random moments, drift inside the model and far beyond it,
 * ticks and durations up to three hours outside the calibrated span (the horizon is one). Every
 * check has one of two outcomes: the bound contains the truth, or the tick (duration) is
 * explicitly reported without a bound. A third — a finite bound that misses — fails the test.
 *
 * <p>The truth is exact: a clock is {@code offset + rate·t + drift(t)} over a real tick {@code t}
 * (1 ns), the rate a Q32.32 number, the linear part in {@link BigInteger}, its reading the floor.
 * Only the node drifts, as a sine of its relative frequency; the parent's continuous durations
 * are then exact rationals.
 *
 * <p>Drift beyond the model is given to cases with at least {@value DriftCheck#ZEROS} zeros a
 * second apart or more, as a frequency ramp 1000–5000 times the bound, with round trips of at most
 * 20 µs: the data show it: fewer zeros cannot show any drift, and a wander
 * barely beyond the bound may hide in the slack (docs/BOUNDS.md, "What the check can and cannot
 * see"). Those cases must come out {@code CONTRADICTED}.
 */
class HostileBoundsTest {
    private static final long HZ = 1_000_000_000L;
    private static final long SECOND = HZ;
    private static final long EDGE = 1L << 40;
    private static final DriftModel MODEL = new DriftModel.BoundedDrift(1);

    /** A simulated clock over the real tick, exact in its linear part. */
    record Clock(long rateQ32, long offset, double driftPpm, double periodTicks, double rampPpmPerSecond) {
        double rate() {
            return rateQ32 / 4294967296.0;
        }

        /** The reading at real tick t, or null if it does not fit a long. */
        Long reading(long t) {
            BigInteger product = BigInteger.valueOf(rateQ32).multiply(BigInteger.valueOf(t));
            BigInteger linear = product.shiftRight(32);
            double fraction = product.and(BigInteger.valueOf(0xFFFF_FFFFL)).longValue() / 4294967296.0;
            double drift = driftPpm == 0 ? 0
                    : rate() * driftPpm * 1e-6 * periodTicks / (2 * Math.PI)
                    * (1 - Math.cos(2 * Math.PI * Math.floorMod(t, (long) periodTicks) / periodTicks));
            // A frequency ramp: rate·(1 + R·t), so the phase gains rate·R·t²/2.
            drift += rampPpmPerSecond == 0 ? 0 : rate() * rampPpmPerSecond * 1e-6 * ((double) t / SECOND) * t / 2;
            BigInteger r = BigInteger.valueOf(offset).add(linear).add(BigInteger.valueOf((long) Math.floor(fraction + drift)));
            return r.bitLength() > 63 ? null : r.longValue();
        }

        /** The exact continuous duration {@code rate·(b − a)} of an undrifted clock. */
        BigFraction duration(long a, long b) {
            return BigFraction.of(BigInteger.valueOf(rateQ32).multiply(BigInteger.valueOf(b - a)), BigInteger.ONE.shiftLeft(32));
        }
    }

    /** What the cases came to, for the assertions that the test is not vacuous. */
    private static final class Tally {
        long contained;
        long unbounded;
        long durationsContained;
        long durationsUnbounded;
        int contradicted;
        int beyondCases;
    }

    @Test
    void everyBoundHoldsOrIsAbsentUnderHostileParameters() throws CalibrationException {
        Tally tally = new Tally();
        for (long seed = 1; seed <= 400; seed++) {
            runCase(seed, tally);
        }
        System.out.printf("hostile: %d ticks contained, %d without a bound; durations %d contained, %d without;"
                        + " %d of %d far-beyond-the-model cases CONTRADICTED%n", tally.contained, tally.unbounded,
                tally.durationsContained, tally.durationsUnbounded, tally.contradicted, tally.beyondCases);
        assertTrue(tally.contained > 40_000, "most checks had a bound: " + tally.contained);
        assertTrue(tally.unbounded > 1_000, "ticks beyond the horizon or in contradicted domains had none: " + tally.unbounded);
        assertTrue(tally.durationsContained > 5_000, "durations bounded: " + tally.durationsContained);
        assertTrue(tally.beyondCases > 20, "cases beyond the model: " + tally.beyondCases);
    }

    private static void runCase(long seed, Tally tally) throws CalibrationException {
        SplittableRandom random = new SplittableRandom(seed);
        int zeroCount = 1 + random.nextInt(6);
        boolean beyond = zeroCount >= DriftCheck.ZEROS && random.nextInt(3) == 0;
        double logRatio = -14 + 28 * random.nextDouble();
        double nodeRate = Math.pow(2, -7 + 14 * random.nextDouble());
        double parentRate = nodeRate * Math.pow(2, logRatio);
        if (parentRate > 1 << 7 || parentRate < 1.0 / (1 << 7)) {
            parentRate = Math.max(1.0 / (1 << 7), Math.min(1 << 7, parentRate));
        }
        long span = (2 + random.nextInt(60)) * SECOND;
        long outside = 3 * 3600 * SECOND;
        long t0 = 0; // real ticks run from -outside to span + outside
        long tEnd = t0 + span + outside;
        double period = (beyond ? 2 + 6 * random.nextDouble() : 200 + 600 * random.nextDouble()) * SECOND;
        // Inside: 2π·A/P at most 0.8 ppm/s; beyond: 100–5000 times the bound.
        double ppmPerSecond = beyond ? 1000 + 4000 * random.nextDouble() : 0.8 * random.nextDouble();
        double amplitude = ppmPerSecond * (period / SECOND) / (2 * Math.PI);
        long nodeQ = Math.max(1, Math.round(nodeRate * 4294967296.0));
        long parentQ = Math.max(1, Math.round(parentRate * 4294967296.0));
        int edge = random.nextInt(5);
        long nodeOffset = offset(edge == 1 || edge == 4, edge == 2, nodeQ, t0, span, random);
        long parentOffset = offset(edge == 3, edge == 4, parentQ, t0, span, random);
        Clock node = new Clock(nodeQ, nodeOffset, amplitude, period, beyond ? ppmPerSecond : 0);
        Clock parent = new Clock(parentQ, parentOffset, 0, 1, 0);
        if (beyond) {
            tally.beyondCases++;
        }

        List<Zero> zeros = new ArrayList<>();
        long[] moments = new long[zeroCount];
        // At random moments, at least a second apart.
        long slot = span / zeroCount;
        for (int i = 0; i < zeroCount; i++) {
            moments[i] = t0 + i * slot + random.nextLong(Math.max(1, slot - SECOND));
        }
        Arrays.sort(moments);
        for (int i = 0; i < zeroCount; i++) {
            // Far beyond the model the wander (≥ 100 µs of phase) dwarfs round trips of at most 20 µs.
            long rtt = 2_000 + random.nextLong(beyond ? 18_000 : 1_000_000);
            long t1 = moments[i];
            long ta = t1 + 1 + random.nextLong(rtt);
            long t2 = t1 + rtt + 2;
            Long k1 = node.reading(t1);
            Long a = parent.reading(ta);
            Long k2 = node.reading(t2);
            if (k1 == null || a == null || k2 == null) {
                throw new AssertionError("seed " + seed + ": a zero's reading does not fit a long: " + node + " " + parent
                        + " t " + t1 + " edge " + edge);
            }
            zeros.add(new Zero(i, k1, a, k2));
        }
        DomainCalibration ref = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", parent.rate() * HZ,
                Optional.empty(), List.of(), true);
        DomainCalibration n = new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", node.rate() * HZ,
                Optional.empty(), zeros, true);
        CalibrationSet set = CalibrationSet.of(List.of(ref, n), MODEL);
        Quality quality = set.quality("node");
        if (beyond && quality == Quality.CONTRADICTED) {
            tally.contradicted++;
        }
        String where = "seed " + seed + " (zeros " + zeroCount + ", rates " + nodeRate + "→" + parentRate + ", drift "
                + ppmPerSecond + " ppm/s, edge " + edge + ", " + quality + ")";
        if (!beyond) {
            assertTrue(quality == Quality.BOUNDED || quality == Quality.SINGLE_ZERO, "inside the model: " + where);
        } else {
            // A ramp bends every three zeros a second apart by ≥ R/2·(1 s)² ≥ 500 µs, far more than
            // their round trips: the data show it, and the check must see it.
            assertEquals(Quality.CONTRADICTED, quality, "far beyond the model: " + where);
        }

        // Ticks: a third inside the span, a third within the horizon outside it, a third beyond.
        int count = 300;
        long[] reals = new long[count];
        for (int i = 0; i < count; i++) {
            reals[i] = switch (i % 3) {
                case 0 -> t0 + random.nextLong(span + 1);
                case 1 -> random.nextBoolean() ? t0 - 1 - random.nextLong(3599 * SECOND)
                        : t0 + span + 1 + random.nextLong(3599 * SECOND);
                default -> random.nextLong(-outside, tEnd);
            };
        }
        Arrays.sort(reals);
        long[] ticks = new long[count];
        long[] truth = new long[count];
        int m = 0;
        for (long real : reals) {
            Long k = node.reading(real);
            Long p = parent.reading(real);
            if (k != null && p != null && (m == 0 || k >= ticks[m - 1])) {
                ticks[m] = k;
                truth[m] = p;
                reals[m] = real;
                m++;
            }
        }
        TickConverter one = set.converter("node");
        long[] lo = new long[m];
        long[] hi = new long[m];
        set.converter("node").convertSorted(ticks, m, lo, hi);
        long firstZero = zeros.get(0).k1();
        long lastZero = zeros.get(zeroCount - 1).k2();
        for (int i = 0; i < m; i++) {
            boolean bounded = one.convert(ticks[i]);
            if (bounded) {
                check(where + " tick " + ticks[i], one.lo(), one.hi(), truth[i]);
                tally.contained++;
            } else {
                tally.unbounded++;
                if (!beyond && zeroCount >= 2 && ticks[i] >= firstZero && ticks[i] <= lastZero) {
                    fail("inside the model and the span a tick must have a bound: " + where + " tick " + ticks[i]);
                }
            }
            assertEquals(bounded, lo[i] != Long.MIN_VALUE, "bulk and single agree on boundedness: " + where);
            if (bounded) {
                check(where + " bulk tick " + ticks[i], lo[i], hi[i], truth[i]);
            }
        }

        // Durations between random pairs, anywhere in the range.
        for (int d = 0; d + 1 < m; d += 3) {
            int j = d + 1 + random.nextInt(m - d - 1);
            long ka = ticks[d];
            long kb = ticks[j];
            BigFraction[] slope = set.slopeBounds("node", ka, kb);
            if (slope == null) {
                tally.durationsUnbounded++;
                continue;
            }
            BigFraction actual = parent.duration(reals[d], reals[j]);
            BigFraction low = slope[0].multiply(BigInteger.valueOf(Math.max(0, kb - ka - 1)));
            BigFraction high = slope[1].multiply(BigInteger.valueOf(kb - ka).add(BigInteger.ONE));
            if (actual.compareTo(low) < 0 || actual.compareTo(high) > 0) {
                fail("duration " + ka + ".." + kb + " of " + where + ": truth " + actual.doubleValue() + " outside ["
                        + low.doubleValue() + ", " + high.doubleValue() + "]");
            }
            tally.durationsContained++;
        }
    }

    /**
     * A tick whose true parent value lies beyond the long range can only be "no bound": any finite
     * bound is a long and misses it. The parent runs 128 times as fast as the node, its readings
     * 2⁴⁵ (about 4.5 min of node time) below the top (or above the bottom) of the range at the zeros, the
     * node's 2⁴¹ from it, so ticks minutes after the last zero (before the first) still fit the
     * node's range while their truth no longer fits the parent's — where a sum that wraps would
     * give a bound near the other end of the range.
     */
    @Test
    void ticksWhoseTruthLeavesTheLongRangeGetNoBound() throws CalibrationException {
        for (boolean top : new boolean[] {true, false}) {
            long span = 10 * SECOND;
            long rate = 128L << 32;
            long nodeOffset = top ? Long.MAX_VALUE - (1L << 41) : Long.MIN_VALUE + (1L << 41) + span;
            long parentOffset = top ? Long.MAX_VALUE - (1L << 45) - 128 * span : Long.MIN_VALUE + (1L << 45) + 128 * span;
            Clock node = new Clock(1L << 32, nodeOffset, 0, 1, 0);
            Clock parent = new Clock(rate, parentOffset, 0, 1, 0);
            List<Zero> zeros = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                long t1 = i * span / 3;
                zeros.add(new Zero(i, node.reading(t1), parent.reading(t1 + 5_000), node.reading(t1 + 10_000)));
            }
            DomainCalibration ref = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 128.0 * HZ,
                    Optional.empty(), List.of(), true);
            DomainCalibration n = new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", HZ,
                    Optional.empty(), zeros, true);
            CalibrationSet set = CalibrationSet.of(List.of(ref, n), MODEL);
            assertEquals(Quality.BOUNDED, set.quality("node"));
            // Minutes beyond the zeros: the truth leaves the long range after about 4.5 min, the node's ticks after 36.
            int count = 2000;
            long[] ticks = new long[count];
            int beyondRange = 0;
            int boundedInRange = 0;
            for (int i = 0; i < count; i++) {
                long t = top ? span + i * (1800 * SECOND / count) : -(count - i) * (1800 * SECOND / count);
                ticks[i] = node.reading(t);
                Long truth = parent.reading(t);
                TickConverter one = set.converter("node");
                boolean bounded = one.convert(ticks[i]);
                if (truth == null) {
                    beyondRange++;
                    assertTrue(!bounded, "tick " + ticks[i] + " whose truth is not a long got [" + one.lo() + ", " + one.hi() + "]");
                } else if (bounded) {
                    check("tick " + ticks[i], one.lo(), one.hi(), truth);
                    boundedInRange++;
                }
            }
            long[] lo = new long[count];
            long[] hi = new long[count];
            set.converter("node").convertSorted(ticks, count, lo, hi);
            for (int i = 0; i < count; i++) {
                long t = top ? span + i * (1800 * SECOND / count) : -(count - i) * (1800 * SECOND / count);
                Long truth = parent.reading(t);
                if (lo[i] != Long.MIN_VALUE) {
                    assertTrue(truth != null, "bulk: tick " + ticks[i] + " whose truth is not a long got [" + lo[i] + ", " + hi[i] + "]");
                    check("bulk tick " + ticks[i], lo[i], hi[i], truth);
                }
            }
            assertTrue(beyondRange > count / 2, "most ticks' truth lies beyond the range: " + beyondRange);
            assertTrue(boundedInRange > 0, "the ticks whose truth fits have bounds: " + boundedInRange);
        }
    }

    /**
     * An offset that puts the zeros' readings within 2⁴⁰ of the top (or bottom) of the long range,
     * or anywhere in the middle.
     */
    private static long offset(boolean high, boolean low, long rateQ32, long t0, long span, SplittableRandom random) {
        long over = BigInteger.valueOf(rateQ32).multiply(BigInteger.valueOf(span + 2 * SECOND)).shiftRight(32).longValueExact();
        if (high) {
            return Long.MAX_VALUE - random.nextLong(EDGE / 2) - over;
        }
        if (low) {
            return Long.MIN_VALUE + random.nextLong(EDGE / 2) + over;
        }
        return random.nextLong(-(1L << 58), 1L << 58);
    }

    private static void check(String what, long lo, long hi, long truth) {
        if (truth < lo || truth > hi) {
            fail(what + ": truth " + truth + " outside [" + lo + ", " + hi + "] (by "
                    + (truth < lo ? lo - truth : truth - hi) + ")");
        }
    }
}
