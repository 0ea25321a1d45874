package dev.dprof.agent.bootstrap;

/**
 * Raw reads of the machine's time stamp counter, the clock domain the consolidator converts from.
 * Usable only after {@link NativeLibrary#load()} succeeded; {@link #rdtscpOrdered()} and
 * {@link #cpuId()} additionally need {@link #hasRdtscp()} (they would fault without it).
 */
public final class NativeClock {
    private NativeClock() {
    }

    /** Plain {@code rdtsc}: cheapest, but the CPU may execute it out of order with its neighbours. */
    public static native long rdtsc();

    /**
     * {@code rdtscp} then {@code lfence}: the read waits for every earlier instruction and no later
     * one starts before it, so a tick read next to a packet send or receive really lies on the
     * right side of it (what zero intervals need to be sound).
     */
    public static native long rdtscpOrdered();

    /** The CPU this thread ran on at the read: low 12 bits of rdtscp's TSC_AUX, as Linux sets it. */
    public static native int cpuId();

    /** Whether the CPU has {@code rdtscp} (CPUID 0x80000001 EDX bit 27). */
    public static native boolean hasRdtscp();

    /** Whether the TSC is invariant, i.e. ticks at a constant rate across P/C-states (CPUID 0x80000007 EDX bit 8). */
    public static native boolean invariantTsc();
}
