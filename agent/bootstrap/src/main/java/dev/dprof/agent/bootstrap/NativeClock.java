package dev.dprof.agent.bootstrap;

/**
 * Raw reads of the CPU's own counter, the clock domain the consolidator converts from: the time
 * stamp counter on x86-64 ({@code rdtsc}), the generic timer's virtual count on aarch64
 * ({@code cntvct_el0}). The method names keep the x86 spelling. Usable only after
 * {@link NativeLibrary#load()} succeeded; on x86-64 {@link #cpuId()} additionally needs
 * {@link #hasRdtscp()} (it would fault without it).
 */
public final class NativeClock {
    private NativeClock() {
    }

    /** Plain {@code rdtsc} (aarch64: {@code mrs cntvct_el0}): cheapest, but the CPU may execute it out of order with its neighbours. */
    public static native long rdtsc();

    /**
     * {@code rdtscp} then {@code lfence}: the read waits for every earlier instruction and no later
     * one starts before it, so a tick read next to a packet send or receive really lies on the
     * right side of it (what zero intervals need to be sound). On aarch64: {@code isb}, the read,
     * {@code isb}, to the same effect.
     */
    public static native long rdtscpOrdered();

    /** The CPU this thread ran on at the read: low 12 bits of rdtscp's TSC_AUX, as Linux sets it (aarch64: sched_getcpu). */
    public static native int cpuId();

    /** Whether the CPU has {@code rdtscp} (CPUID 0x80000001 EDX bit 27); false on aarch64. */
    public static native boolean hasRdtscp();

    /**
     * Whether the counter is invariant, i.e. ticks at a constant rate across P/C-states: CPUID
     * 0x80000007 EDX bit 8 on x86-64; always on aarch64, whose system counter has a fixed rate by
     * architecture.
     */
    public static native boolean invariantTsc();

    /** The counter's architectural rate in Hz ({@code cntfrq_el0} on aarch64), or 0 where none is stated (x86-64). */
    public static native long counterFrequency();

    /** The instruction that reads the counter: {@code rdtsc} or {@code cntvct_el0}. */
    public static native String counterName();

    /** Whether the counter is the x86 time stamp counter (else the aarch64 generic timer). */
    public static boolean isTsc() {
        return "rdtsc".equals(counterName());
    }

    /**
     * Whether {@link #rdtscpOrdered()} can run: on x86-64 it needs {@code rdtscp}; aarch64's
     * {@code isb}-fenced read always can.
     */
    public static boolean hasOrderedRead() {
        return !isTsc() || hasRdtscp();
    }

    /** Fields of {@link #checkCounters}'s result, in order. */
    public static final int CHECK_CPUS = 0;
    public static final int CHECK_READS = 1;
    public static final int CHECK_CROSSINGS = 2;
    public static final int CHECK_OUT_OF_ORDER = 3;
    public static final int CHECK_MAX_BACKWARD = 4;
    public static final int CHECK_FIELDS = 5;

    /**
     * Whether every CPU's counter agrees: one native thread per CPU of the process's affinity mask,
     * each pinned to its CPU, loads the other threads' latest reads and then reads the counter, so its
     * read is causally after theirs, and publishes it (after the kernel's boot-time
     * {@code check_tsc_warp}, without its lock); until {@code enough} comparisons with fresh reads of
     * other CPUs were made, or for about {@code budgetNanos} on a machine too busy for them. Fills
     * {@code out} with the CPUs pinned, the reads, those comparisons (crossings), the reads lower than
     * a read of another CPU loaded before them, and the largest such step back in ticks. The calling
     * thread is not moved.
     *
     * @return false if the check cannot run here (not Linux, no affinity mask, {@code out} too short)
     */
    public static native boolean checkCounters(long budgetNanos, long enough, long[] out);
}
