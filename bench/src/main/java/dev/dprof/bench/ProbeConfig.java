package dev.dprof.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The agent configuration of the probe benchmark: one plain region on
 * {@link ProbeTargets#instrumented()}, nothing else (annotations off), rings large and drained
 * often enough that nothing is dropped while a thread records tens of millions of events a second.
 */
final class ProbeConfig {
    static final String REGION = "bench#instrumented";
    /**
     * Per-thread ring, in events (32 bytes each: 256 MiB). Large, so that nothing is dropped while
     * one thread records ~40 M events/s and the drainer (≈ 11 ns of CPU per event) shares a loaded
     * 2-core machine: the ring covers ~0.2 s without the drainer, where 2^21 (~50 ms) lost events
     * whenever other jobs ran. Any ring past the L2 costs the probe a few ns (BENCHMARKS.md); 2^23
     * instead of 2^21 adds under 1 ns. See {@code --ring-events}.
     */
    static final int RING_EVENTS = 1 << 23;
    static final int DRAIN_INTERVAL_MS = 1;

    private ProbeConfig() {
    }

    /** Writes the YAML with {@link #RING_EVENTS} into {@code dir} and returns its path. */
    static Path write(Path dir) throws IOException {
        return write(dir, RING_EVENTS);
    }

    /** Writes the YAML into {@code dir} and returns its path. */
    static Path write(Path dir, int ringEvents) throws IOException {
        Path yaml = dir.resolve("probe-bench.yaml");
        Files.write(yaml, List.of(
                "# written by dprof bench probe",
                "version: 1",
                "clock: rdtsc",
                "drainIntervalMs: " + DRAIN_INTERVAL_MS,
                "ringEvents: " + ringEvents,
                "annotations: false",
                "regions:",
                "  - name: " + REGION,
                "    class: " + ProbeTargets.class.getName(),
                "    method: instrumented",
                "    descriptor: \"()V\""));
        return yaml;
    }

    /** The {@code -javaagent:} argument attaching {@code agentJar} with this config, writing under {@code out}. */
    static String javaagent(Path agentJar, Path yaml, Path out) {
        return "-javaagent:" + agentJar.toAbsolutePath() + "=config=" + yaml.toAbsolutePath()
                + ",out=" + out.toAbsolutePath();
    }
}
