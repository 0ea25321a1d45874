package dev.dprof.agent.config;

import java.util.Locale;

/**
 * What the agent writes ({@code mode:} in the YAML file): every event ({@link #TRACE}, the default), or
 * per region and interval one record of figures ({@link #STATISTICS}; docs/CONFIG.md, "Statistics mode"),
 * for services that run for weeks. Every event goes through the probes either way.
 */
public enum RecordingMode {
    TRACE,
    STATISTICS;

    /** The spelling used in the YAML file ({@code trace}, {@code statistics}). */
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
