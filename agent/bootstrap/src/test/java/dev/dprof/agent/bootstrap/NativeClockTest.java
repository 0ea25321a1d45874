package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The counter reads, the per-CPU counter check and rdtscp mode of the native rings. */
class NativeClockTest {
    /** Before each test rather than once, so a build without the library reports each as skipped, with the reason. */
    @BeforeEach
    void load() {
        NativeRequired.assumeLoaded();
    }

    @Test
    void readsAdvance() {
        long a = NativeClock.rdtsc();
        long b = NativeClock.rdtsc();
        assertTrue(b >= a);
        assertTrue(NativeClock.rdtscpOrdered() >= b);
        assumeTrue(NativeClock.hasRdtscp());
        long c = NativeClock.rdtscpOrdered();
        long d = NativeClock.rdtscpOrdered();
        assertTrue(c >= b && d >= c);
        int cpu = NativeClock.cpuId();
        assertTrue(cpu >= 0 && cpu < 4096);
    }

    @Test
    void messageNamesTheClock() {
        String counter = NativeClock.counterName();
        assertEquals(isX86() ? "rdtsc" : "cntvct_el0", counter);
        assertTrue(NativeLibrary.message().startsWith("dprof: native clock loaded (" + counter), NativeLibrary.message());
    }

    /** x86 states no counter rate; aarch64's cntfrq_el0 does. */
    @Test
    void frequencyIsStatedWhereTheArchitectureStatesIt() {
        long hz = NativeClock.counterFrequency();
        assertTrue(isX86() ? hz == 0 : hz > 0, "counter frequency " + hz);
    }

    /** This machine's counters agree: no read went back (the C test, native_test.c, checks every CPU took part). */
    @Test
    void countersOfEveryCpuAgree() {
        long[] out = new long[NativeClock.CHECK_FIELDS];
        assertTrue(NativeClock.checkCounters(50_000_000, 100, out));
        assertTrue(out[NativeClock.CHECK_CPUS] >= 1, "CPUs pinned: " + out[NativeClock.CHECK_CPUS]);
        assertTrue(out[NativeClock.CHECK_READS] > 0);
        assertEquals(0, out[NativeClock.CHECK_OUT_OF_ORDER], "reads behind the one before, by up to "
                + out[NativeClock.CHECK_MAX_BACKWARD] + " ticks");
        assertFalse(NativeClock.checkCounters(5_000_000, 100, new long[2]), "a result array too short is refused");
    }

    private static boolean isX86() {
        String arch = System.getProperty("os.arch");
        return arch.equals("amd64") || arch.equals("x86_64");
    }

    /**
     * rdtscp mode stores the cpu of the read. The thread cannot be pinned from Java, so each probe
     * is bracketed by two cpuId() reads; where both agree, the thread did not move in between
     * (moving away and back within a few dozen nanoseconds would take two migrations), and the
     * stored cpu must be that one.
     */
    @Test
    void rdtscpModeStoresTheCpu() throws Exception {
        assumeTrue(NativeClock.hasRdtscp());
        Backend.NATIVE.configure(RingConfig.CLOCK_RDTSCP, 4096);
        int n = 2000;
        Collector c = new Collector();
        long tid;
        int[][] around = new int[n][];
        try (Worker w = new Worker("rdtscp")) {
            tid = w.tid();
            w.call(() -> {
                for (int i = 0; i < n; i++) {
                    int before = NativeClock.cpuId();
                    Rings.nativeRecord(EventCodes.header(RingsTest.KIND, i), i, i);
                    around[i] = new int[] {before, NativeClock.cpuId()};
                }
                return null;
            });
        }
        RingsTest.drainUntil(Backend.NATIVE, c, () -> c.hasEnded(tid));
        Backend.NATIVE.configure(RingConfig.CLOCK_RDTSC, 4096);

        List<Slot> ev = c.of(tid);
        assertEquals(n + 2, ev.size());
        int agreed = 0;
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Slot s = ev.get(i + 1);
            assertEquals(i, s.region());
            if (around[i][0] == around[i][1]) {
                agreed++;
                if (s.cpu() != around[i][0]) {
                    wrong.add("event " + i + ": cpu " + s.cpu() + ", thread was on " + around[i][0]);
                }
            }
        }
        assertEquals(List.of(), wrong);
        assertTrue(agreed > 0);
        for (Slot s : ev) {
            assertTrue(s.cpu() >= 0 && s.cpu() < 4096);
        }
    }
}
