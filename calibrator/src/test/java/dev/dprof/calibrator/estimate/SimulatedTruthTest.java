package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Property tests of soundness: simulated clocks over one real tick stream know the truth of
 * every reading, so every converted interval must contain it — 100%, with and without drift,
 * with wide and with tight zeros (where a wrong drift model cannot hide), across a tree.
 */
class SimulatedTruthTest {
    private static final long TSC_HZ = 3_000_000_000L;
    private static final long START = 1L << 40;

    /** A simulated machine: its clock over the shared real tick. */
    record Machine(String id, SimulatedClock clock) {
        long read(long real) {
            return clock.apply(real);
        }
    }

    static Machine machine(String id, SplittableRandom random, double driftPpm) {
        double rate = 1.23 + random.nextDouble() * 0.17;
        long offset = random.nextLong(1L << 44) - (1L << 43);
        String spec = "rate=" + rate + ",offset=" + offset + ",tsc-hz=" + TSC_HZ
                + (driftPpm > 0 ? ",drift-ppm=" + driftPpm + ",drift-period-s=" + (300 + random.nextInt(600)) : "");
        return new Machine(id, SimulatedClock.parse(spec));
    }

    /** Zeros of node against parent: one per epoch, round trips of [minRtt, maxRtt] real ticks. */
    static List<Zero> zeros(Machine node, Machine parent, SplittableRandom random, long from, long to,
                            long every, long minRtt, long maxRtt) {
        List<Zero> zeros = new ArrayList<>();
        int epoch = 0;
        for (long t = from; t <= to; t += every) {
            long rtt = minRtt + random.nextLong(maxRtt - minRtt + 1);
            long t1 = t + random.nextLong(every / 10);
            long ta = t1 + 1 + random.nextLong(rtt);
            long t2 = t1 + rtt + 2;
            zeros.add(new Zero(epoch++, node.read(t1), parent.read(ta), node.read(t2)));
        }
        return zeros;
    }

    static DomainCalibration file(Machine m, Optional<Machine> parent, List<Zero> zeros) {
        return new DomainCalibration(m.id, parent.map(Machine::id), "sim", "rdtsc",
                m.clock.rate() * TSC_HZ, Optional.of(m.clock.spec()), zeros, true);
    }

    /** Converts events at random real ticks of {@code node} and returns [checked, contained, median width]. */
    static long[] check(CalibrationSet set, Machine node, Machine reference, SplittableRandom random,
                        long from, long to, int events) throws CalibrationException {
        long[] reals = new long[events];
        for (int i = 0; i < events; i++) {
            reals[i] = from + random.nextLong(to - from);
        }
        Arrays.sort(reals);
        TickConverter converter = set.converter(node.id);
        long contained = 0;
        long checked = 0;
        long[] widths = new long[events];
        for (long real : reals) {
            if (!converter.convert(node.read(real))) {
                continue;
            }
            long truth = reference.read(real);
            if (converter.lo() <= truth && truth <= converter.hi()) {
                contained++;
            } else {
                System.err.printf("not contained: real %d tick %d truth %d in [%d, %d]%n", real, node.read(real),
                        truth, converter.lo(), converter.hi());
            }
            widths[(int) checked++] = converter.hi() - converter.lo();
        }
        // The bulk path must be just as sound.
        long[] ticks = new long[events];
        for (int i = 0; i < events; i++) {
            ticks[i] = node.read(reals[i]);
        }
        long[] lo = new long[events];
        long[] hi = new long[events];
        set.converter(node.id).convertSorted(ticks, events, lo, hi);
        for (int i = 0; i < events; i++) {
            if (lo[i] != Long.MIN_VALUE) {
                long truth = reference.read(reals[i]);
                if (lo[i] > truth || truth > hi[i]) {
                    contained--;
                    System.err.printf("bulk not contained: tick %d truth %d in [%d, %d]%n", ticks[i], truth, lo[i], hi[i]);
                }
            }
        }
        long[] w = Arrays.copyOf(widths, (int) checked);
        Arrays.sort(w);
        return new long[] {checked, contained, w.length == 0 ? -1 : w[w.length / 2]};
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void withoutDriftEveryIntervalHoldsTheTruth(long seed) throws CalibrationException {
        SplittableRandom random = new SplittableRandom(seed);
        Machine ref = machine("ref", random, 0);
        Machine node = machine("node", random, 0);
        long span = 60 * TSC_HZ;
        for (long rtt : new long[] {150_000, 20}) {
            List<Zero> zeros = zeros(node, ref, random, START, START + span, 10 * TSC_HZ, rtt / 2, rtt);
            for (DriftModel model : List.of(new DriftModel.Constant(), new DriftModel.BoundedDrift(1))) {
                CalibrationSet set = CalibrationSet.of(List.of(file(ref, Optional.empty(), List.of()),
                        file(node, Optional.of(ref), zeros)), model);
                long[] r = check(set, node, ref, random, START - TSC_HZ, START + span + TSC_HZ, 20_000);
                assertEquals(20_000, r[0], "every tick bounded (" + model.describe() + ")");
                assertEquals(r[0], r[1], "contained, rtt " + rtt + ", " + model.describe());
                assertEquals(Quality.BOUNDED, set.quality("node"));
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {4, 5, 6})
    void withDriftInsideTheAssumptionEveryIntervalHoldsTheTruth(long seed) throws CalibrationException {
        SplittableRandom random = new SplittableRandom(seed);
        Machine ref = machine("ref", random, 50);
        Machine node = machine("node", random, 50);
        long span = 120 * TSC_HZ;
        // 50 ppm over ≥ 300 s: |dF/dt|/F ≤ 2·2π·50e-6/300 ≈ 2.1 ppm/s for the pair.
        DriftModel model = new DriftModel.BoundedDrift(2.2);
        for (long rtt : new long[] {150_000, 20}) {
            List<Zero> zeros = zeros(node, ref, random, START, START + span, 5 * TSC_HZ, rtt / 2, rtt);
            CalibrationSet set = CalibrationSet.of(List.of(file(ref, Optional.empty(), List.of()),
                    file(node, Optional.of(ref), zeros)), model);
            long[] r = check(set, node, ref, random, START - TSC_HZ, START + span + TSC_HZ, 20_000);
            assertEquals(20_000, r[0]);
            assertEquals(r[0], r[1], "contained, rtt " + rtt);
        }
    }

    @Test
    void tightZerosExposeDriftThatTheConstantModelDenies() throws CalibrationException {
        SplittableRandom random = new SplittableRandom(7);
        Machine ref = machine("ref", random, 0);
        Machine node = machine("node", random, 200);
        long span = 300 * TSC_HZ;
        List<Zero> zeros = zeros(node, ref, random, START, START + span, 10 * TSC_HZ, 10, 20);
        CalibrationSet set = CalibrationSet.of(List.of(file(ref, Optional.empty(), List.of()),
                file(node, Optional.of(ref), zeros)), new DriftModel.Constant());
        assertNotEquals(Quality.BOUNDED, set.quality("node"), "the constant model must be caught out");
    }

    @Test
    void aTreeOfThreeMachinesWithDriftStaysSound() throws CalibrationException {
        SplittableRandom random = new SplittableRandom(8);
        Machine a = machine("a", random, 50);
        Machine b = machine("b", random, 50);
        Machine c = machine("c", random, 50);
        long span = 90 * TSC_HZ;
        DriftModel model = new DriftModel.BoundedDrift(2.2);
        CalibrationSet set = CalibrationSet.of(List.of(file(a, Optional.empty(), List.of()),
                file(b, Optional.of(a), zeros(b, a, random, START, START + span, 5 * TSC_HZ, 30_000, 90_000)),
                file(c, Optional.of(b), zeros(c, b, random, START, START + span, 5 * TSC_HZ, 30_000, 90_000))), model);
        long[] r = check(set, c, a, random, START, START + span, 20_000);
        assertEquals(20_000, r[0]);
        assertEquals(r[0], r[1]);
        assertTrue(r[2] < 2 * 3 * 90_000, "two hops stay within a few round trips: median width " + r[2]);
    }

    @Test
    void intervalsAreAsNarrowAsTheRoundTrips() throws CalibrationException {
        SplittableRandom random = new SplittableRandom(9);
        Machine ref = machine("ref", random, 0);
        Machine node = machine("node", random, 0);
        long span = 60 * TSC_HZ;
        long rtt = 60_000;
        List<Zero> zeros = zeros(node, ref, random, START, START + span, 10 * TSC_HZ, rtt, rtt);
        CalibrationSet set = CalibrationSet.of(List.of(file(ref, Optional.empty(), List.of()),
                file(node, Optional.of(ref), zeros)), new DriftModel.BoundedDrift(1));
        long[] r = check(set, node, ref, random, START, START + span, 10_000);
        // A round trip of rtt real ticks spans about rtt·rate reference ticks.
        assertTrue(r[2] <= 3 * rtt * ref.clock().rate(), "median width " + r[2]);
    }
}
