package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.agent.bootstrap.NativeClock;
import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OrderedClockTest {
    @Test
    void theTwinOfATscProbeClockIsTheSameDomainReadInOrder() {
        assumeTrue(NativeLibrary.load() && NativeClock.hasRdtscp(), "needs the native clock and rdtscp");
        DomainClock probes = new DomainClock(ClockSource.RDTSC, NativeClock::rdtsc,
                Optional.of(SimulatedClock.parse("rate=1.3,offset=7")));
        DomainClock twin = OrderedClock.twinOf(probes).orElseThrow();
        assertEquals(probes.domainId(), twin.domainId());
        assertEquals(ClockSource.RDTSCP, twin.source());
        long before = probes.now();
        long read = twin.now();
        long after = probes.now();
        assertEquals(true, before <= read && read <= after, before + " " + read + " " + after);
        assertEquals(ClockSource.RDTSCP, OrderedClock.forProcess().source());
    }

    @Test
    void aNanoTimeProbeClockIsAlreadyOrdered() {
        DomainClock probes = new DomainClock(ClockSource.NANOTIME, System::nanoTime, Optional.empty());
        assertSame(probes, OrderedClock.twinOf(probes).orElseThrow());
    }
}
