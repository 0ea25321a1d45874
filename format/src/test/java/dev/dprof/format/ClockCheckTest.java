package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.ClockCheck.Answer;
import dev.dprof.format.ClockCheck.Verdict;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The verdict of a clock check from synthetic facts, and the record's round trip. */
class ClockCheckTest {
    private static final String FLAGS = "constant_tsc nonstop_tsc tsc_known_freq";
    private static final String AVAILABLE = "tsc kvm-clock hpet acpi_pm";

    private static ClockCheck tsc(Answer cpuid, String flags, String current, String available, long outOfOrder) {
        return new ClockCheck("rdtsc", cpuid, flags, current, available, 2, 5000, 400, outOfOrder,
                outOfOrder == 0 ? 0 : 1234);
    }

    @Test
    void thisKindOfMachinePasses() {
        ClockCheck c = tsc(Answer.YES, FLAGS, "tsc", AVAILABLE, 0);
        assertEquals(Verdict.STEADY, c.verdict());
        assertEquals(Optional.empty(), c.fault());
        assertEquals("invariant (rdtsc; cpuinfo: constant_tsc nonstop_tsc tsc_known_freq; clocksource tsc of "
                + AVAILABLE + "; 2 CPUs, 5000 reads, 400 crossings, 0 out of order)", c.summary());
    }

    /** A KVM guest may run on kvm-clock with a sound TSC: the current clocksource alone is not judged. */
    @Test
    void anotherCurrentClocksourceIsNotAFault() {
        assertEquals(Verdict.STEADY, tsc(Answer.YES, FLAGS, "kvm-clock", AVAILABLE, 0).verdict());
    }

    @Test
    void theCpuidBitDecides() {
        ClockCheck c = tsc(Answer.NO, FLAGS, "tsc", AVAILABLE, 0);
        assertEquals(Verdict.NOT_INVARIANT, c.verdict());
        assertEquals("the TSC is not invariant: the CPU does not report an invariant TSC (CPUID 0x80000007 EDX bit 8)",
                c.fault().orElseThrow());
    }

    @Test
    void missingCpuinfoFlagsDecide() {
        ClockCheck c = tsc(Answer.YES, "constant_tsc", "tsc", AVAILABLE, 0);
        assertEquals(Verdict.NOT_INVARIANT, c.verdict());
        assertEquals("the TSC is not invariant: /proc/cpuinfo lacks nonstop_tsc on some CPU", c.fault().orElseThrow());
        assertEquals("the TSC is not invariant: /proc/cpuinfo lacks constant_tsc and nonstop_tsc on some CPU",
                tsc(Answer.YES, "", "tsc", AVAILABLE, 0).fault().orElseThrow());
    }

    /** An unreadable cpuinfo (null) is not a fault by itself: the other signals still judge. */
    @Test
    void unreadableTextsAreNotFaults() {
        assertEquals(Verdict.STEADY, tsc(Answer.YES, null, "", "", 0).verdict());
    }

    @Test
    void aTscTheKernelDroppedIsNotInvariant() {
        ClockCheck c = tsc(Answer.YES, FLAGS, "hpet", "hpet acpi_pm", 0);
        assertEquals(Verdict.NOT_INVARIANT, c.verdict());
        assertEquals("the TSC is not invariant: the kernel no longer offers tsc as a clocksource (marked unstable, or"
                + " never trusted; available: hpet acpi_pm)", c.fault().orElseThrow());
    }

    @Test
    void readsOutOfOrderDecideFirst() {
        ClockCheck c = tsc(Answer.YES, FLAGS, "tsc", AVAILABLE, 3);
        assertEquals(Verdict.OUT_OF_ORDER, c.verdict());
        assertEquals("the TSC of 2 CPUs disagree: 3 of 5000 reads were lower than a read of another CPU that came"
                + " before them, by up to 1234 ticks", c.fault().orElseThrow());
    }

    @Test
    void noCrossingIsSaid() {
        ClockCheck c = new ClockCheck("rdtsc", Answer.YES, FLAGS, "tsc", AVAILABLE, 4, 100, 0, 0, 0);
        assertEquals(Verdict.STEADY, c.verdict());
        assertTrue(c.summary().endsWith("4 CPUs, 100 reads, 0 crossings, 0 out of order, the CPUs' counters never compared)"),
                c.summary());
    }

    /** aarch64's generic timer: no cpuinfo flags or TSC clocksource to look for; the per-CPU check still judges. */
    @Test
    void theGenericTimerIsJudgedByItsCpus() {
        ClockCheck ok = new ClockCheck("cntvct_el0", Answer.YES, null, "arch_sys_counter", "arch_sys_counter", 8, 100,
                50, 0, 0);
        assertEquals(Verdict.STEADY, ok.verdict());
        ClockCheck bad = new ClockCheck("cntvct_el0", Answer.YES, null, "arch_sys_counter", "arch_sys_counter", 8, 100,
                50, 1, 9);
        assertEquals("the counter (cntvct_el0) of 8 CPUs disagree: 1 of 100 reads were lower than a read of another"
                + " CPU that came before them, by up to 9 ticks", bad.fault().orElseThrow());
    }

    @Test
    void nanoTimeNeedsNoCheck() {
        ClockCheck c = new ClockCheck("nanoTime", Answer.UNKNOWN, null, "", "", 0, 0, 0, 0, 0);
        assertEquals(Verdict.NOT_A_COUNTER, c.verdict());
        assertEquals(Optional.empty(), c.fault());
    }

    @Test
    void roundTrip() throws FormatException {
        for (ClockCheck c : new ClockCheck[] {tsc(Answer.YES, FLAGS, "tsc", AVAILABLE, 2),
                new ClockCheck("nanoTime", Answer.UNKNOWN, null, "", "", 0, 0, 0, 0, 0),
                tsc(Answer.NO, "", "hpet", "hpet", 0)}) {
            ByteSink out = new ByteSink(64);
            c.encode(out);
            ByteSource in = new ByteSource(ByteBuffer.wrap(out.toByteArray()));
            assertEquals(RecordType.CLOCK_CHECK, in.readByte("type"));
            assertEquals(c, ClockCheck.decode(in));
        }
    }

    @Test
    void badBytesGiveOneLine() {
        ByteSink out = new ByteSink(16);
        out.writeString("rdtsc");
        out.writeByte(7);
        FormatException e = assertThrows(FormatException.class,
                () -> ClockCheck.decode(new ByteSource(ByteBuffer.wrap(out.toByteArray()))));
        assertEquals("unknown answer 7 in a clock check", e.getMessage());
    }
}
