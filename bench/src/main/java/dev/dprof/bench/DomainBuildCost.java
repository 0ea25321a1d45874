package dev.dprof.bench;

import dev.dprof.calibrator.estimate.CalibrationException;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DriftModel;
import dev.dprof.calibrator.estimate.Quality;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * What the checks that run when a domain's conversion is built cost (the drift check over every
 * stretch of consecutive zeros, the windows, the mean frequency): thread CPU time of
 * {@link CalibrationSet#of} for one domain with a zero every second for an hour, the median of
 * {@value #ROUNDS} builds after {@value #WARM_UP} unmeasured ones. Thread CPU time, not wall time,
 * so a loaded host slows it less. None of this runs per tick: {@link ConversionBench} measures the
 * conversion with the set built in its set-up.
 */
final class DomainBuildCost {
    static final int ZEROS = 3600;
    private static final int WARM_UP = 5;
    private static final int ROUNDS = 15;
    private static final long HZ = 3_000_000_000L;

    private DomainBuildCost() {
    }

    /** The median thread CPU milliseconds of one build. */
    static double medianMillis() throws CalibrationException {
        SimulatedClock reference = SimulatedClock.parse("rate=1.31,offset=1000000,tsc-hz=" + HZ);
        SimulatedClock node = SimulatedClock.parse("rate=1.37,offset=-55555555,tsc-hz=" + HZ);
        SplittableRandom random = new SplittableRandom(1);
        List<Zero> zeros = new ArrayList<>();
        for (int e = 0; e < ZEROS; e++) {
            long t1 = (1L << 40) + e * HZ + random.nextLong(HZ / 2);
            long rtt = 40_000 + random.nextInt(120_000);
            zeros.add(new Zero(e, node.apply(t1), reference.apply(t1 + rtt / 2), node.apply(t1 + rtt)));
        }
        List<DomainCalibration> files = List.of(
                new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 1.31 * HZ, Optional.empty(), List.of(), true),
                new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", 1.37 * HZ, Optional.empty(), zeros, true));
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        double[] millis = new double[ROUNDS];
        for (int round = -WARM_UP; round < ROUNDS; round++) {
            long t0 = bean.getCurrentThreadCpuTime();
            CalibrationSet set = CalibrationSet.of(files, new DriftModel.BoundedDrift(1));
            long t1 = bean.getCurrentThreadCpuTime();
            if (set.quality("node") != Quality.BOUNDED) {
                throw new IllegalStateException("the simulated domain should be BOUNDED: " + set.quality("node"));
            }
            if (round >= 0) {
                millis[round] = (t1 - t0) / 1e6;
            }
        }
        Arrays.sort(millis);
        return millis[ROUNDS / 2];
    }
}
