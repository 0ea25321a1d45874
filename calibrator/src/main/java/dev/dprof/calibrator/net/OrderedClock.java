package dev.dprof.calibrator.net;

import dev.dprof.agent.bootstrap.NativeClock;
import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import java.util.Optional;

/**
 * The clock a calibrator reads. A zero is sound only if every tick read next to a packet send or
 * receive really lies on the right side of it (DProf §3.2, Alg. 4: {@code k1 < a < k2} in real
 * time); a bare {@code rdtsc} may execute early or late around its neighbours, so the TSC is read
 * with {@link NativeClock#rdtscpOrdered()} ({@code rdtscp} then {@code lfence}; on aarch64 the
 * generic timer between two {@code isb}). Without the
 * native library the declared fallback is {@link System#nanoTime()}, whose vDSO read is itself
 * ordered — but that is a domain of its own ({@code nanotime@…}).
 */
public final class OrderedClock {
    private OrderedClock() {
    }

    /**
     * This process's clock domain for a stand-alone calibrator: the ordered counter if the native
     * library loads and the CPU can order its reads ({@code rdtscp} on x86-64), else {@code System.nanoTime}; simulated when
     * {@code -Ddprof.clock.sim} or {@code DPROF_SIM_CLOCK} says so.
     *
     * @throws IllegalArgumentException if the simulated-clock setting is malformed (one line)
     */
    public static DomainClock forProcess() {
        return of(DomainClock.simulatedFromEnvironment());
    }

    /** The ordered clock of this machine's counter, simulated as given. */
    public static DomainClock of(java.util.Optional<dev.dprof.clock.SimulatedClock> sim) {
        if (NativeLibrary.load() && NativeClock.hasOrderedRead()) {
            return new DomainClock(orderedSource(), NativeClock::rdtscpOrdered, sim);
        }
        return new DomainClock(ClockSource.NANOTIME, System::nanoTime, sim);
    }

    /** The source of an ordered read: rdtscp on x86-64, the isb-fenced generic timer on aarch64. */
    private static ClockSource orderedSource() {
        return NativeClock.isTsc() ? ClockSource.RDTSCP : ClockSource.CNTVCT;
    }

    /**
     * The ordered twin of a probe clock: the same domain (same counter, same simulation, same id),
     * read with ordered instructions. Empty when the probes read the TSC but the CPU has no
     * {@code rdtscp}, because then no read of that domain can be ordered and no zero would be sound.
     */
    public static Optional<DomainClock> twinOf(DomainClock probes) {
        if (probes.source() == ClockSource.NANOTIME) {
            return Optional.of(probes);
        }
        if (!NativeLibrary.load() || !NativeClock.hasOrderedRead()) {
            return Optional.empty();
        }
        DomainClock twin = new DomainClock(orderedSource(), NativeClock::rdtscpOrdered, probes.simulated());
        if (!twin.domainId().equals(probes.domainId())) {
            throw new IllegalStateException("ordered clock names domain " + twin.domainId() + ", probes "
                    + probes.domainId());
        }
        return Optional.of(twin);
    }
}
