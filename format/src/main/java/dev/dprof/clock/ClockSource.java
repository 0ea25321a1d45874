package dev.dprof.clock;

/** Where a process's ticks come from; recorded in its header. */
public enum ClockSource {
    /** The TSC through a JNI {@code rdtsc}. */
    RDTSC,
    /** The TSC through {@code rdtscp}, with the CPU id stored next to every tick. */
    RDTSCP,
    /** {@link System#nanoTime()}: the declared fallback when the native library cannot load. */
    NANOTIME,
    /**
     * The aarch64 generic timer's virtual count ({@code cntvct_el0}, at the fixed rate {@code cntfrq_el0}):
     * the CPU's own counter there, a {@code tsc@…} domain like the TSC. Added after the others, so the
     * byte of the earlier ones is unchanged.
     */
    CNTVCT
}
