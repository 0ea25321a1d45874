package dev.dprof.agent.config;

import dev.dprof.format.HandoffRegions;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The whole agent configuration, as read from the YAML file by {@link ConfigLoader}. Immutable.
 *
 * @param version         the file format version (always 1)
 * @param out             the output directory as written (relative paths are left relative); the agent argument
 *                        {@code out=} overrides it, see {@link #withOut(Path)}
 * @param clock           the clock events are stamped with
 * @param drainIntervalMs how often, in ms (1..10), per-thread buffers are drained to disk
 * @param ringEvents      per-thread buffer capacity in events, a power of two in 1024..16777216
 * @param annotations     whether {@code @dev.dprof.api.Region} annotations and the {@code DProf.*} calls are honoured
 * @param exclude         class patterns that are never woven (each compiles with {@link ClassPattern#forClass})
 * @param calibration     the calibration base to join, if any
 * @param regions         the configured regions, in file order
 * @param handoffs        the handoff kinds recorded ({@code handoffs:}; all of them by default, none for {@code off})
 * @param diskReserveMiB  the free space the queue and ring files never use, in MiB ({@code diskReserveMiB:}), or
 *                        {@link #DEFAULT_DISK_RESERVE} for 5% of the file system, at most 256 MiB
 * @param mode            a trace (every event) or statistics ({@code mode:})
 * @param statisticsIntervalMs statistics mode's interval in ms ({@code statisticsIntervalMs:})
 * @param traceWindows    statistics mode's trace windows ({@code traceWindows:}), if any
 */
public record AgentConfig(
        int version,
        Path out,
        ClockChoice clock,
        int drainIntervalMs,
        int ringEvents,
        boolean annotations,
        List<String> exclude,
        Optional<CalibrationSpec> calibration,
        List<RegionSpec> regions,
        Set<HandoffRegions.Kind> handoffs,
        int diskReserveMiB,
        RecordingMode mode,
        int statisticsIntervalMs,
        Optional<TraceWindows> traceWindows) {

    public static final int VERSION = 1;
    public static final String DEFAULT_OUT = "dprof-runs";
    public static final ClockChoice DEFAULT_CLOCK = ClockChoice.TSC;
    public static final int DEFAULT_DRAIN_INTERVAL_MS = 5;
    public static final int MIN_DRAIN_INTERVAL_MS = 1;
    public static final int MAX_DRAIN_INTERVAL_MS = 10;
    public static final int DEFAULT_RING_EVENTS = 65_536;
    public static final int MIN_RING_EVENTS = 1_024;
    public static final int MAX_RING_EVENTS = 16_777_216;
    /** {@link #diskReserveMiB} when the YAML does not say: the sink's default. */
    public static final int DEFAULT_DISK_RESERVE = -1;
    public static final int MIN_DISK_RESERVE_MIB = 8;
    public static final int MAX_DISK_RESERVE_MIB = 1 << 20;
    public static final int DEFAULT_STATISTICS_INTERVAL_MS = 1_000;
    public static final int MIN_STATISTICS_INTERVAL_MS = 10;
    public static final int MAX_STATISTICS_INTERVAL_MS = 3_600_000;

    public AgentConfig {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(clock, "clock");
        exclude = List.copyOf(exclude);
        Objects.requireNonNull(calibration, "calibration");
        regions = List.copyOf(regions);
        handoffs = Set.copyOf(handoffs);
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(traceWindows, "traceWindows");
    }

    /** A trace's configuration. */
    public AgentConfig(int version, Path out, ClockChoice clock, int drainIntervalMs, int ringEvents,
                       boolean annotations, List<String> exclude, Optional<CalibrationSpec> calibration,
                       List<RegionSpec> regions, Set<HandoffRegions.Kind> handoffs, int diskReserveMiB) {
        this(version, out, clock, drainIntervalMs, ringEvents, annotations, exclude, calibration, regions, handoffs,
                diskReserveMiB, RecordingMode.TRACE, DEFAULT_STATISTICS_INTERVAL_MS, Optional.empty());
    }

    /** A configuration with the default disk reserve. */
    public AgentConfig(int version, Path out, ClockChoice clock, int drainIntervalMs, int ringEvents,
                       boolean annotations, List<String> exclude, Optional<CalibrationSpec> calibration,
                       List<RegionSpec> regions, Set<HandoffRegions.Kind> handoffs) {
        this(version, out, clock, drainIntervalMs, ringEvents, annotations, exclude, calibration, regions, handoffs,
                DEFAULT_DISK_RESERVE);
    }

    /** The disk reserve in bytes, or negative for the sink's default. */
    public long diskReserveBytes() {
        return diskReserveMiB < 0 ? -1 : (long) diskReserveMiB << 20;
    }

    /** A configuration that records every kind of handoff ({@code handoffs: auto}, the default). */
    public AgentConfig(int version, Path out, ClockChoice clock, int drainIntervalMs, int ringEvents,
                       boolean annotations, List<String> exclude, Optional<CalibrationSpec> calibration,
                       List<RegionSpec> regions) {
        this(version, out, clock, drainIntervalMs, ringEvents, annotations, exclude, calibration, regions,
                ALL_HANDOFFS);
    }

    /** {@code handoffs: auto}: every kind. */
    public static final Set<HandoffRegions.Kind> ALL_HANDOFFS = Set.copyOf(EnumSet.allOf(HandoffRegions.Kind.class));

    /** The configuration of an empty file: every option at its default, no regions. */
    public static AgentConfig defaults() {
        return new AgentConfig(VERSION, Path.of(DEFAULT_OUT), DEFAULT_CLOCK, DEFAULT_DRAIN_INTERVAL_MS,
                DEFAULT_RING_EVENTS, true, List.of(), Optional.empty(), List.of());
    }

    /** This configuration recording the handoff kinds {@code kinds} (for the agent argument {@code handoffs=}). */
    public AgentConfig withHandoffs(Set<HandoffRegions.Kind> kinds) {
        return new AgentConfig(version, out, clock, drainIntervalMs, ringEvents, annotations, exclude, calibration,
                regions, kinds, diskReserveMiB, mode, statisticsIntervalMs, traceWindows);
    }

    /** This configuration with another output directory (for the agent argument {@code out=}). */
    public AgentConfig withOut(Path newOut) {
        return new AgentConfig(version, newOut, clock, drainIntervalMs, ringEvents, annotations, exclude,
                calibration, regions, handoffs, diskReserveMiB, mode, statisticsIntervalMs, traceWindows);
    }
}
