package dev.dprof.agent.config;

import java.util.Locale;

/**
 * Which clock the agent stamps events with ({@code clock:} in the YAML file).
 *
 * <ul>
 *   <li>{@link #TSC}: the CPU's own counter (the default): the time-stamp counter read with
 *       {@code rdtsc} on x86-64, the generic timer's {@code cntvct_el0} on aarch64.</li>
 *   <li>{@link #RDTSC}: the same on x86-64, by the instruction's name; an error elsewhere.</li>
 *   <li>{@link #RDTSCP}: the time-stamp counter read with {@code rdtscp}, which also stores the CPU id;
 *       x86-64 only.</li>
 *   <li>{@link #NANOTIME}: {@link System#nanoTime()}, the declared fallback where no counter can be used.</li>
 * </ul>
 */
public enum ClockChoice {
    TSC,
    RDTSC,
    RDTSCP,
    NANOTIME;

    /** The spelling used in the YAML file ({@code tsc}, {@code rdtsc}, {@code rdtscp}, {@code nanotime}). */
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the probes read the CPU's counter (every choice but {@link #NANOTIME}). */
    public boolean isCounter() {
        return this != NANOTIME;
    }

    /**
     * Why this choice cannot be made on a machine of architecture {@code osArch} (as the JDK spells
     * {@code os.arch}), or null if it can: {@code rdtsc} and {@code rdtscp} name x86 instructions.
     */
    public String problemOn(String osArch) {
        boolean x86 = osArch.equals("amd64") || osArch.equals("x86_64");
        if (x86 || (this != RDTSC && this != RDTSCP)) {
            return null;
        }
        return "'" + yamlName() + "' is an x86 instruction and this machine is " + osArch
                + " (use 'tsc', the CPU's own counter, or 'nanotime')";
    }
}
