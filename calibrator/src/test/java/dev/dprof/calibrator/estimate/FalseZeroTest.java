package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * One false zero among true ones (a forged or corrupted {@code a}): every
 * bound contains the truth, or the domain says it has none. Relative rates from 2⁻⁷ to 2⁷, 3 to
 * 6 zeros at random moments, drift inside the model; the false zero at any position, its
 * {@code a} beyond the true interval by an excess the neighbours can show — at least what they
 * and the drift bound leave open at its place ({@link #visibleExcess}), up to 10⁴ times that.
 * A zero false by less cannot be told from a true one (docs/BOUNDS.md, "What the check can and
 * cannot see"), and fewer than three zeros are never checked.
 */
class FalseZeroTest {
    private static final long HZ = 1_000_000_000L;
    private static final long SECOND = HZ;
    private static final DriftModel MODEL = new DriftModel.BoundedDrift(1);

    @Test
    void oneFalseZeroAmongTrueOnesNeverGivesAWrongBound() throws CalibrationException {
        int contradicted = 0;
        int named = 0;
        long contained = 0;
        int cases = 400;
        for (long seed = 1; seed <= cases; seed++) {
            Outcome o = runCase(seed);
            contradicted += o.contradicted ? 1 : 0;
            named += o.named ? 1 : 0;
            contained += o.contained;
        }
        System.out.printf("false zeros: %d of %d domains CONTRADICTED (%d with the false zero named), %d ticks"
                + " with a bound that holds%n", contradicted, cases, named, contained);
        // Not vacuous: the excess is chosen so the neighbours show it, and the check must see it.
        assertTrue(contradicted == cases, contradicted + " of " + cases);
        assertTrue(named > cases / 2, "the single suspect is named in most cases: " + named);
    }

    private record Outcome(boolean contradicted, boolean named, long contained) {
    }

    private static Outcome runCase(long seed) throws CalibrationException {
        SplittableRandom random = new SplittableRandom(seed);
        int zeroCount = 3 + random.nextInt(4);
        double nodeRate = Math.pow(2, -3 + 6 * random.nextDouble());
        double parentRate = nodeRate * Math.pow(2, -4 + 8 * random.nextDouble());
        long span = (2L * zeroCount + random.nextInt(60)) * SECOND;
        double period = (200 + 600 * random.nextDouble()) * SECOND;
        double ppmPerSecond = 0.8 * random.nextDouble();
        HostileBoundsTest.Clock node = new HostileBoundsTest.Clock(Math.round(nodeRate * 4294967296.0),
                random.nextLong(-(1L << 50), 1L << 50), ppmPerSecond * (period / SECOND) / (2 * Math.PI), period, 0);
        HostileBoundsTest.Clock parent = new HostileBoundsTest.Clock(Math.round(parentRate * 4294967296.0),
                random.nextLong(-(1L << 50), 1L << 50), 0, 1, 0);

        long[] moments = new long[zeroCount];
        long slot = span / zeroCount;
        for (int i = 0; i < zeroCount; i++) {
            moments[i] = i * slot + random.nextLong(Math.max(1, slot - SECOND));
        }
        Arrays.sort(moments);
        List<Zero> zeros = new ArrayList<>();
        long[][] parentTrap = new long[zeroCount][];
        for (int i = 0; i < zeroCount; i++) {
            long rtt = 2_000 + random.nextLong(200_000);
            long t1 = moments[i];
            long ta = t1 + 1 + random.nextLong(rtt);
            long t2 = t1 + rtt + 2;
            zeros.add(new Zero(i, node.reading(t1), parent.reading(ta), node.reading(t2)));
            parentTrap[i] = new long[] {parent.reading(t1), parent.reading(t2)};
        }
        int f = random.nextInt(zeroCount);
        long excess = (long) Math.ceil(visibleExcess(zeros, parentTrap, f, parentRate)
                * (1 + Math.pow(10, 4 * random.nextDouble())));
        Zero z = zeros.get(f);
        long forged = random.nextBoolean() ? parentTrap[f][1] + excess : parentTrap[f][0] - excess;
        zeros.set(f, new Zero(z.epoch(), z.k1(), forged, z.k2()));

        DomainCalibration ref = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", parentRate * HZ,
                Optional.empty(), List.of(), true);
        DomainCalibration n = new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", nodeRate * HZ,
                Optional.empty(), zeros, true);
        CalibrationSet set = CalibrationSet.of(List.of(ref, n), MODEL);
        Quality quality = set.quality("node");
        String where = "seed " + seed + " (" + zeroCount + " zeros, zero " + f + " false by " + excess + ", rates "
                + nodeRate + "→" + parentRate + ", " + quality + ")";

        // Ticks across the span and an hour around it: a bound that holds, or none.
        int count = 600;
        long[] reals = new long[count];
        for (int i = 0; i < count; i++) {
            reals[i] = random.nextLong(-3600 * SECOND, span + 3600 * SECOND);
        }
        Arrays.sort(reals);
        TickConverter converter = set.converter("node");
        long contained = 0;
        long last = Long.MIN_VALUE;
        for (long real : reals) {
            long k = node.reading(real);
            if (k < last) {
                continue;
            }
            last = k;
            if (converter.convert(k)) {
                long truth = parent.reading(real);
                if (truth < converter.lo() || truth > converter.hi()) {
                    fail(where + ": tick " + k + " truth " + truth + " outside [" + converter.lo() + ", "
                            + converter.hi() + "]");
                }
                contained++;
            }
        }
        String said = set.conversion("node").orElseThrow().contradiction().orElse("");
        return new Outcome(quality == Quality.CONTRADICTED, said.contains("epoch " + z.epoch() + " "), contained);
    }

    /**
     * How far beyond its true interval a zero's {@code a} must lie for its neighbours to show it,
     * in parent ticks (a sufficient bound, generous by a factor of two): the neighbours of the
     * stretch of three that holds it trap the conversion at its place within their own traps
     * (widened by how far a line through them reaches, for a zero at an end) plus the drift the
     * model allows over the stretch, {@code ρ·F·T²/2}.
     */
    static double visibleExcess(List<Zero> zeros, long[][] parentTrap, int f, double parentRate) {
        int first = Math.max(0, Math.min(f - 1, zeros.size() - 3));
        double[] x = new double[3];
        double width = 0;
        for (int k = 0; k < 3; k++) {
            x[k] = zeros.get(first + k).k1();
            width = Math.max(width, parentTrap[first + k][1] - parentTrap[first + k][0] + 2.0);
        }
        double reach = f == first + 1 ? 1 : Math.max((x[2] - x[0]) / (x[2] - x[1]), (x[2] - x[0]) / (x[1] - x[0]));
        double seconds = (double) (parentTrap[first + 2][1] - parentTrap[first][0]) / (parentRate * HZ);
        double drift = 1e-6 * parentRate * HZ * seconds * seconds / 2;
        return 2 * ((1 + 2 * reach) * width + (1 + reach) * 2 * drift);
    }
}
