package dev.dprof.agent.config;

/**
 * Which clock the agent stamps events with ({@code clock:} in the YAML file).
 *
 * <ul>
 *   <li>{@link #RDTSC}: the time-stamp counter (the default).</li>
 *   <li>{@link #RDTSCP}: the time-stamp counter read with {@code rdtscp}, which also stores the CPU id.</li>
 *   <li>{@link #NANOTIME}: {@link System#nanoTime()}, the declared fallback where no TSC can be used.</li>
 * </ul>
 */
public enum ClockChoice {
    RDTSC,
    RDTSCP,
    NANOTIME;

    /** The spelling used in the YAML file ({@code rdtsc}, {@code rdtscp}, {@code nanotime}). */
    public String yamlName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
