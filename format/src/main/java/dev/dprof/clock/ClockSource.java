package dev.dprof.clock;

/** Where a process's ticks come from; recorded in its header. */
public enum ClockSource {
    /** The TSC through a JNI {@code rdtsc}. */
    RDTSC,
    /** The TSC through {@code rdtscp}, with the CPU id stored next to every tick. */
    RDTSCP,
    /** {@link System#nanoTime()}: the declared fallback when the native library cannot load. */
    NANOTIME
}
