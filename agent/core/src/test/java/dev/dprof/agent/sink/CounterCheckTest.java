package dev.dprof.agent.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.dprof.format.ClockCheck;
import org.junit.jupiter.api.Test;

/** The counter flags of synthetic /proc/cpuinfo texts. */
class CounterCheckTest {
    private static String cpu(int n, String flags) {
        return "processor\t: " + n + "\nvendor_id\t: GenuineIntel\nflags\t\t: " + flags + "\nbugs\t\t: spectre_v1\n\n";
    }

    @Test
    void flagsEveryCpuLists() {
        String text = cpu(0, "fpu tsc rdtscp constant_tsc nonstop_tsc tsc_known_freq tsc_adjust")
                + cpu(1, "fpu tsc rdtscp constant_tsc nonstop_tsc tsc_known_freq tsc_adjust");
        assertEquals("constant_tsc nonstop_tsc tsc_known_freq", CounterCheck.counterFlags(text));
    }

    /** A flag one CPU lacks is not the machine's: the counter must be invariant on every CPU. */
    @Test
    void aFlagOneCpuLacksIsLeftOut() {
        String text = cpu(0, "tsc constant_tsc nonstop_tsc") + cpu(1, "tsc constant_tsc");
        assertEquals("constant_tsc", CounterCheck.counterFlags(text));
        assertEquals(ClockCheck.Verdict.NOT_INVARIANT, new ClockCheck("rdtsc", ClockCheck.Answer.YES,
                CounterCheck.counterFlags(text), "tsc", "tsc hpet", 2, 10, 5, 0, 0).verdict());
    }

    @Test
    void noFlagsLineIsUnknown() {
        assertNull(CounterCheck.counterFlags("processor\t: 0\nFeatures\t: fp asimd evtstrm\n"));
        assertNull(CounterCheck.counterFlags(null));
        assertEquals("", CounterCheck.counterFlags(cpu(0, "fpu vme")));
    }
}
