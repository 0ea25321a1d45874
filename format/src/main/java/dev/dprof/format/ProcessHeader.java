package dev.dprof.format;

import dev.dprof.clock.ClockSource;
import dev.dprof.clock.SimulatedClock;
import java.util.Optional;

/**
 * The first record of a process's queue: who wrote the ticks that follow, and with which clock.
 *
 * @param nominalTickHz   ticks per second measured against {@code System.nanoTime} at start;
 *                        used only to show nanoseconds, never inside a bound
 * @param probeCostTicks  measured cost of one probe (one event) in ticks, ×1024 for precision
 * @param clockNote       why the clock source was chosen, e.g. the reason for a fallback
 * @param statisticsIntervalMs 0 for a trace (the default); in statistics mode the interval of its
 *                        {@link IntervalStatistics} records (added in version 4 at the header's end: a
 *                        header without it is a trace, a reader older than it ignores it)
 * @param traced          whether the process wrote its events as batches: always in a trace, in statistics
 *                        mode only when the tests asked for both
 */
public record ProcessHeader(
        int formatVersion,
        String host,
        long pid,
        long startEpochMillis,
        long startTick,
        String domainId,
        ClockSource clockSource,
        String clockNote,
        double nominalTickHz,
        Optional<SimulatedClock> simulatedClock,
        long probeCostTicksX1024,
        String jvm,
        String agentVersion,
        String config,
        int drainIntervalMs,
        int statisticsIntervalMs,
        boolean traced) {

    /** A trace's header. */
    public ProcessHeader(int formatVersion, String host, long pid, long startEpochMillis, long startTick,
                         String domainId, ClockSource clockSource, String clockNote, double nominalTickHz,
                         Optional<SimulatedClock> simulatedClock, long probeCostTicksX1024, String jvm,
                         String agentVersion, String config, int drainIntervalMs) {
        this(formatVersion, host, pid, startEpochMillis, startTick, domainId, clockSource, clockNote, nominalTickHz,
                simulatedClock, probeCostTicksX1024, jvm, agentVersion, config, drainIntervalMs, 0, true);
    }

    /** Whether the process aggregated its events into {@link IntervalStatistics} records. */
    public boolean statisticsMode() {
        return statisticsIntervalMs > 0;
    }

    public void encode(ByteSink out) {
        out.writeByte(RecordType.HEADER);
        out.writeVarLong(formatVersion);
        out.writeString(host);
        out.writeVarLong(pid);
        out.writeVarLong(startEpochMillis);
        out.writeVarLong(startTick);
        out.writeString(domainId);
        out.writeByte(clockSource.ordinal());
        out.writeString(clockNote);
        out.writeDouble(nominalTickHz);
        out.writeString(simulatedClock.map(SimulatedClock::spec).orElse(""));
        out.writeVarLong(probeCostTicksX1024);
        out.writeString(jvm);
        out.writeString(agentVersion);
        out.writeString(config);
        out.writeVarLong(drainIntervalMs);
        if (statisticsIntervalMs > 0) {
            out.writeVarLong(statisticsIntervalMs);
            out.writeBoolean(traced);
        }
    }

    /** Decodes the body after the type byte. */
    public static ProcessHeader decode(ByteSource in) throws FormatException {
        int version = in.readVarInt("format version", Integer.MAX_VALUE);
        if (version < RecordType.OLDEST_READABLE_VERSION || version > RecordType.FORMAT_VERSION) {
            throw new FormatException("unknown format version " + version + " (this build reads versions "
                    + RecordType.OLDEST_READABLE_VERSION + " to " + RecordType.FORMAT_VERSION + ")");
        }
        String host = in.readString("host");
        long pid = in.readVarLong("pid");
        long startMillis = in.readVarLong("start time");
        long startTick = in.readVarLong("start tick");
        String domain = in.readString("clock domain");
        int source = in.readByte("clock source");
        if (source >= ClockSource.values().length) {
            throw new FormatException("unknown clock source " + source);
        }
        String note = in.readString("clock note");
        double hz = in.readDouble("nominal tick rate");
        String rateProblem = TickRate.problem(hz);
        if (rateProblem != null) {
            throw new FormatException("nominal " + rateProblem);
        }
        String sim = in.readString("simulated clock");
        Optional<SimulatedClock> simulated;
        try {
            simulated = sim.isEmpty() ? Optional.empty() : Optional.of(SimulatedClock.parse(sim));
        } catch (IllegalArgumentException e) {
            throw new FormatException("bad simulated clock '" + sim + "': " + e.getMessage());
        }
        long cost = in.readVarLong("probe cost");
        String jvm = in.readString("jvm");
        String agent = in.readString("agent version");
        String config = in.readString("config");
        int drain = in.readVarInt("drain interval", 1_000_000);
        int statistics = 0;
        boolean traced = true;
        if (in.hasRemaining()) {
            statistics = in.readVarInt("statistics interval", Integer.MAX_VALUE);
            if (statistics == 0) {
                throw new FormatException("statistics interval 0 (a trace writes no interval)");
            }
            traced = in.readBoolean("traced");
        }
        return new ProcessHeader(version, host, pid, startMillis, startTick, domain,
                ClockSource.values()[source], note, hz, simulated, cost, jvm, agent, config, drain, statistics, traced);
    }

    /** Ticks to nanoseconds at the nominal rate: for display, never for a bound. */
    public double ticksToNanos(double ticks) {
        return ticks * 1e9 / nominalTickHz;
    }
}
