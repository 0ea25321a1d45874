package dev.dprof.bench;

import dev.dprof.calibrator.estimate.CalibrationException;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.calibrator.estimate.TickConverter;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Sound conversion of one thread's sorted ticks against a double-precision linear conversion
 * {@code a + b·k} of the same ticks, in the same run. The calibration is a
 * simulated 60 s run with a zero every 10 s; the ticks are a dense stretch of one busy thread
 * (65 536 events in 100 ms), the shape the consolidator converts batch by batch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ConversionBench {
    static final int TICKS = 65_536;
    private static final long HZ = 3_000_000_000L;
    private static final long START = 1L << 40;

    @Param({"bounded:1", "constant"})
    public String drift;

    private long[] ticks;
    private long[] lo;
    private long[] hi;
    private double[] out;
    private double a;
    private double b;
    private TickConverter converter;

    @Setup
    public void setup() throws CalibrationException {
        SimulatedClock reference = SimulatedClock.parse("rate=1.31,offset=1000000,tsc-hz=" + HZ);
        SimulatedClock node = SimulatedClock.parse("rate=1.37,offset=-55555555,tsc-hz=" + HZ);
        SplittableRandom random = new SplittableRandom(1);
        List<Zero> zeros = new ArrayList<>();
        for (int e = 0; e <= 6; e++) {
            long t1 = START + e * 10 * HZ;
            long rtt = 40_000 + random.nextInt(40_000);
            zeros.add(new Zero(e, node.apply(t1), reference.apply(t1 + rtt / 2), node.apply(t1 + rtt)));
        }
        CalibrationSet set = CalibrationSet.of(List.of(
                new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 1.31 * HZ, Optional.empty(), List.of(), true),
                new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", 1.37 * HZ, Optional.empty(), zeros, true)),
                DriftModels.parse(drift));
        converter = set.converter("node");
        ticks = new long[TICKS];
        long t = START + 25 * HZ;
        for (int i = 0; i < TICKS; i++) {
            t += 1 + random.nextInt(2 * (int) (HZ / 10 / TICKS));
            ticks[i] = node.apply(t);
        }
        lo = new long[TICKS];
        hi = new long[TICKS];
        out = new double[TICKS];
        a = -55555555 * 1.31 / 1.37;
        b = 1.31 / 1.37;
    }

    @Benchmark
    public void sound(Blackhole bh) {
        converter.convertSorted(ticks, TICKS, lo, hi);
        bh.consume(lo);
        bh.consume(hi);
    }

    @Benchmark
    public void linear(Blackhole bh) {
        for (int i = 0; i < TICKS; i++) {
            out[i] = a + b * ticks[i];
        }
        bh.consume(out);
    }
}
