package dev.dprof.cli;

import dev.dprof.agent.bootstrap.NativeClock;
import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.clock.SimulatedClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The simulated machines of a test bed: one clock spec per machine — rates spread over
 * 1.23–1.40 like the relative frequencies of the DProf paper's machines (Appendix A.1), random
 * offsets, all from one seed — and the measured TSC rate they share.
 *
 * <p>Drift goes to the joins only. The drift term is a function of the real tick alone, so
 * machines with the same drift settings drift in phase and their relative frequency would stay
 * constant; with the reference undrifted, every join's frequency relative to the reference wanders
 * by the requested amplitude.
 */
final class TestbedMachines {
    private static final double RATE_LOW = 1.23;
    private static final double RATE_HIGH = 1.40;
    private static final long OFFSET_RANGE = 1L << 40;
    private static final long RATE_WINDOW_MILLIS = 200;

    private TestbedMachines() {
    }

    /**
     * Canonical specs ({@link SimulatedClock#spec()}), the reference first.
     *
     * @param driftPpm amplitude of the joins' frequency wander, 0 for none
     */
    static List<String> specs(int machines, long seed, long tscHz, double driftPpm, double driftPeriodS) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> specs = new ArrayList<>();
        for (int i = 0; i < machines; i++) {
            double rate = RATE_LOW + random.nextDouble() * (RATE_HIGH - RATE_LOW);
            long offset = random.nextLong(-OFFSET_RANGE, OFFSET_RANGE);
            String spec = String.format(Locale.ROOT, "rate=%.9f,offset=%d,tsc-hz=%d", rate, offset, tscHz);
            if (i > 0 && driftPpm > 0) {
                spec += String.format(Locale.ROOT, ",drift-ppm=%s,drift-period-s=%s", driftPpm, driftPeriodS);
            }
            specs.add(SimulatedClock.parse(spec).spec());
        }
        return specs;
    }

    /**
     * The real TSC rate, {@code rdtsc} against {@link System#nanoTime()} over about 200 ms, measured
     * once and passed to every machine: the drift period is converted to ticks with it, and a rate
     * measured in each process would differ slightly, putting the agent and the calibrator of one
     * machine in different domains. Without the native clock the machines read
     * {@code System.nanoTime}, whose rate is exactly 10⁹.
     */
    static long measureTscHz() throws InterruptedException {
        if (!NativeLibrary.load()) {
            return 1_000_000_000L;
        }
        long n0 = System.nanoTime();
        long t0 = NativeClock.rdtsc();
        Thread.sleep(RATE_WINDOW_MILLIS);
        long t1 = NativeClock.rdtsc();
        long n1 = System.nanoTime();
        return Math.round((t1 - t0) * 1e9 / (n1 - n0));
    }

    /**
     * Where the joins' frequency wander is now, in degrees of its period: the drift term is a
     * function of the real tick alone, so the phase — and with it whether the frequency changes
     * fast (near 0° and 180°) or hardly at all (near 90° and 270°) during the run — depends on
     * the machine's uptime. NaN without the native clock.
     */
    static double driftPhaseDeg(long tscHz, double periodS) {
        if (!NativeLibrary.load()) {
            return Double.NaN;
        }
        long period = Math.max(1, Math.round(periodS * tscHz));
        return 360.0 * Math.floorMod(NativeClock.rdtsc(), period) / period;
    }

    /** See {@link dev.dprof.clock.HostLoad#average()}. */
    static String loadAverage() {
        return dev.dprof.clock.HostLoad.average();
    }

    /** The CPU a machine is pinned to with {@code --pin}: the reference alone on 0, the joins on the others. */
    static int cpu(int machine, int cpus) {
        if (machine == 0 || cpus < 2) {
            return 0;
        }
        return 1 + (machine - 1) % (cpus - 1);
    }
}
