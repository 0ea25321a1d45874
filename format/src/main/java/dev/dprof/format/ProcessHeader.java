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
        int drainIntervalMs) {

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
        return new ProcessHeader(version, host, pid, startMillis, startTick, domain,
                ClockSource.values()[source], note, hz, simulated, in.readVarLong("probe cost"),
                in.readString("jvm"), in.readString("agent version"), in.readString("config"),
                in.readVarInt("drain interval", 1_000_000));
    }

    /** Ticks to nanoseconds at the nominal rate: for display, never for a bound. */
    public double ticksToNanos(double ticks) {
        return ticks * 1e9 / nominalTickHz;
    }
}
