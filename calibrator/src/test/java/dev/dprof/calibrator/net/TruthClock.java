package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.calibration.Zero;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A simulated clock domain over {@code System.nanoTime} that remembers, for every tick it handed
 * out, the real tick it was read at: the truth a zero is checked against, recorded rather than
 * inverted.
 */
final class TruthClock {
    final DomainClock clock;
    private final Map<Long, Queue<Long>> realBySim = new ConcurrentHashMap<>();

    TruthClock(String simSpec) {
        SimulatedClock sim = SimulatedClock.parse(simSpec);
        this.clock = new DomainClock(ClockSource.NANOTIME, () -> {
            long real = System.nanoTime();
            realBySim.computeIfAbsent(sim.apply(real), k -> new ConcurrentLinkedQueue<>()).add(real);
            return real;
        }, Optional.of(sim));
    }

    /**
     * Asserts that a zero measured by a node on {@code node} against a parent on {@code parent} is
     * true: real ticks {@code t1 < ta < t2} exist with {@code node(t1) = k1}, {@code parent(ta) = a},
     * {@code node(t2) = k2}.
     */
    static void assertSound(Zero z, TruthClock node, TruthClock parent) {
        Queue<Long> t1s = node.realBySim.get(z.k1());
        Queue<Long> tas = parent.realBySim.get(z.a());
        Queue<Long> t2s = node.realBySim.get(z.k2());
        assertTrue(t1s != null && tas != null && t2s != null,
                () -> "a tick of " + z + " was never read by its clock");
        long t1 = t1s.stream().mapToLong(Long::longValue).min().orElseThrow();
        long t2 = t2s.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertTrue(tas.stream().anyMatch(ta -> t1 < ta && ta < t2),
                () -> "zero " + z + " is false: k1 at real " + t1 + ", k2 at real " + t2 + ", a at real " + tas);
    }
}
