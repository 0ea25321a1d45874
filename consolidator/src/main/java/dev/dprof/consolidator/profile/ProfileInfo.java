package dev.dprof.consolidator.profile;

import com.fasterxml.jackson.annotation.JsonCreator;
import dev.dprof.consolidator.read.LeftOutProcess;
import java.util.List;
import java.util.Map;

/**
 * What a consolidated profile is (its {@code profile.json}): the processes and threads whose
 * events it holds, the regions by global index, the calibration it rests on and what matching
 * found. Bounds in the events are in reference ticks; {@code referenceTickHz} turns them into
 * nanoseconds for display only.
 *
 * @param sync          {@code freezer} (sound intervals) or {@code none} (one domain, raw ticks)
 * @param assumption    the drift assumption every bound rests on
 * @param window        the analysed span chosen at consolidation, or null for the whole run
 * @param truth         whether events carry their truth (simulated clocks)
 * @param handoffs      what handoff matching found (zeros in a profile written before handoffs existed)
 * @param weaving       the YAML regions that matched no method, and the processes that could not say
 *                      (empty in a profile written before it existed)
 */
public record ProfileInfo(int formatVersion, String sync, String assumption, String referenceDomain,
                          double referenceTickHz, Window window, boolean truth, List<Process> processes,
                          List<Stream> streams, List<Region> regions, Messages messages, long events,
                          long causalityConflicts, long unboundedEvents, List<String> problems, Handoffs handoffs,
                          Weaving weaving, List<LeftOut> leftOut) {

    public static final int FORMAT_VERSION = 1;

    public ProfileInfo {
        handoffs = handoffs == null ? Handoffs.NONE : handoffs;
        weaving = weaving == null ? Weaving.NONE : weaving;
        leftOut = leftOut == null ? List.of() : List.copyOf(leftOut);
    }

    /** A profile that left no process out. */
    public ProfileInfo(int formatVersion, String sync, String assumption, String referenceDomain,
                       double referenceTickHz, Window window, boolean truth, List<Process> processes,
                       List<Stream> streams, List<Region> regions, Messages messages, long events,
                       long causalityConflicts, long unboundedEvents, List<String> problems, Handoffs handoffs,
                       Weaving weaving) {
        this(formatVersion, sync, assumption, referenceDomain, referenceTickHz, window, truth, processes, streams,
                regions, messages, events, causalityConflicts, unboundedEvents, problems, handoffs, weaving, List.of());
    }

    /**
     * A process left out because its queue cannot be opened, and the events it recorded, all lost
     * (the figure the damage line, {@code stats} and the report give).
     *
     * @param queue           the process's queue directory
     * @param file            the file whose damage keeps the queue shut
     * @param reason          why, in words
     * @param lostEvents      the events its files say it recorded
     * @param lostEventsExact false when damage hides more: {@code lostEvents} is then a lower bound
     * @param countedBy       where the count comes from ({@code its end record}, {@code its batches and ring files} …)
     */
    public record LeftOut(String queue, String file, String reason, long lostEvents, boolean lostEventsExact,
                          String countedBy) {
        /** The entry of a process left out at reading. */
        public static LeftOut of(LeftOutProcess p) {
            return new LeftOut(p.queue().toString(), p.file().toString(), p.reason(), p.count().events(),
                    p.count().exact(), p.count().source());
        }

        /** {@code N} or {@code at least N}, as the lines say it. */
        public String lostPhrase() {
            return (lostEventsExact ? "" : "at least ") + lostEvents;
        }
    }

    /** A profile without a weaving report. */
    public ProfileInfo(int formatVersion, String sync, String assumption, String referenceDomain,
                       double referenceTickHz, Window window, boolean truth, List<Process> processes,
                       List<Stream> streams, List<Region> regions, Messages messages, long events,
                       long causalityConflicts, long unboundedEvents, List<String> problems, Handoffs handoffs) {
        this(formatVersion, sync, assumption, referenceDomain, referenceTickHz, window, truth, processes, streams,
                regions, messages, events, causalityConflicts, unboundedEvents, problems, handoffs, Weaving.NONE);
    }

    /** A profile without handoffs. */
    public ProfileInfo(int formatVersion, String sync, String assumption, String referenceDomain,
                       double referenceTickHz, Window window, boolean truth, List<Process> processes,
                       List<Stream> streams, List<Region> regions, Messages messages, long events,
                       long causalityConflicts, long unboundedEvents, List<String> problems) {
        this(formatVersion, sync, assumption, referenceDomain, referenceTickHz, window, truth, processes, streams,
                regions, messages, events, causalityConflicts, unboundedEvents, problems, Handoffs.NONE);
    }

    /**
     * One process: its clock domain, how well that domain is calibrated, and its rate bounds.
     *
     * @param instances   the dynamic instance id of each region whose id the process fixed at start
     *                    (YAML {@code instance: {property: …}}, the paper's rank-specific region), by name
     * @param calibration what the domain's calibration rests on, or null (reference, or none)
     * @param clockCheck  whether the process's counter can be one clock domain, in one line (format
     *                    {@code ClockCheck#summary}); null for a queue written before the check
     */
    public record Process(int index, String host, long pid, String domain, String quality, double nominalTickHz,
                          double probeCostTicks, String simulatedClock, long lostEvents, boolean ended,
                          String slopeLow, String slopeHigh, double slopeLowApprox, double slopeHighApprox,
                          Map<String, Long> instances, Calibration calibration, String clockCheck) {
        @JsonCreator
        public Process {
            instances = instances == null ? Map.of() : Map.copyOf(instances);
        }

        /** A process whose queue says nothing of its counter. */
        public Process(int index, String host, long pid, String domain, String quality, double nominalTickHz,
                       double probeCostTicks, String simulatedClock, long lostEvents, boolean ended,
                       String slopeLow, String slopeHigh, double slopeLowApprox, double slopeHighApprox,
                       Map<String, Long> instances, Calibration calibration) {
            this(index, host, pid, domain, quality, nominalTickHz, probeCostTicks, simulatedClock, lostEvents, ended,
                    slopeLow, slopeHigh, slopeLowApprox, slopeHighApprox, instances, calibration, null);
        }
    }

    /**
     * A process's domain calibration in a few figures (see {@code dprof calibration show}), and
     * what it meant for the process's events.
     *
     * @param frequencyWidthPpm the mean-frequency bound's width, {@code (F_hi − F_lo)/F × 10⁶}, NaN without one
     * @param contradiction     where the data contradict the drift assumption, in words; null if nowhere
     * @param fallback          what the domain falls back to then, in words; null if not contradicted
     * @param outsideSpanEvents the process's events before its domain's first zero or after its last
     *                          (bounded by extrapolation, within the horizon)
     * @param unboundedEvents   the process's events without a bound (contradicted, or beyond the
     *                          horizon), left out of the profile
     * @param horizonSeconds    how far outside the span an event still gets a bound
     */
    public record Calibration(int zeros, double medianZeroWidthNs, double frequencyWidthPpm, String contradiction,
                              String fallback, long outsideSpanEvents, long unboundedEvents, double horizonSeconds) {
    }

    /** One thread. */
    public record Stream(int index, int process, long thread, String name) {
    }

    /** A region, identified across processes by its name. */
    public record Region(int index, String name, String kind) {
    }

    /**
     * What message and barrier matching found.
     *
     * @param ambiguousKeys keys sent twice while in flight, and TCP write offsets recorded twice on one flow
     * @param tcp           how the TCP connections' ends were paired ({@link Tcp#NONE} in a profile written before)
     * @param unmatched     the unmatched events by kind and reason, counted at consolidation; null in a
     *                      profile written before (or built by hand), whose readers count for themselves
     */
    public record Messages(int matched, int unmatchedSends, int unmatchedReceives, int ambiguousKeys,
                           int usedForCalibration, int unusedForCalibration, int barrierInstances, Tcp tcp,
                           List<Unmatched> unmatched) {
        public Messages {
            tcp = tcp == null ? Tcp.NONE : tcp;
            unmatched = unmatched == null ? null : List.copyOf(unmatched);
        }

        /** Without the unmatched events by kind and reason (a profile written before them). */
        public Messages(int matched, int unmatchedSends, int unmatchedReceives, int ambiguousKeys,
                        int usedForCalibration, int unusedForCalibration, int barrierInstances, Tcp tcp) {
            this(matched, unmatchedSends, unmatchedReceives, ambiguousKeys, usedForCalibration, unusedForCalibration,
                    barrierInstances, tcp, null);
        }

        /** Without TCP connection figures. */
        public Messages(int matched, int unmatchedSends, int unmatchedReceives, int ambiguousKeys,
                        int usedForCalibration, int unusedForCalibration, int barrierInstances) {
            this(matched, unmatchedSends, unmatchedReceives, ambiguousKeys, usedForCalibration, unusedForCalibration,
                    barrierInstances, Tcp.NONE);
        }

        /** The rows of {@link #unmatched}, none when the profile predates them. */
        public List<Unmatched> unmatchedRows() {
            return unmatched == null ? List.of() : unmatched;
        }

        /**
         * The run's unmatched events in words, one line per kind with each reason's count, e.g.
         * {@code tcp: 4042 sends unmatched [4040 peer not profiled, 2 not read within the run (…)]}:
         * what {@code consolidate}, {@code analyze stats} and the report print. A profile written
         * before the split gives its totals.
         */
        public List<String> unmatchedLines() {
            if (unmatched == null) {
                return unmatchedSends + unmatchedReceives == 0 ? List.of() : List.of(unmatchedSends + " sends and "
                        + unmatchedReceives + " receives unmatched (this profile predates their split by kind and reason)");
            }
            Map<String, Map<String, List<Unmatched>>> byKind = new java.util.LinkedHashMap<>();
            for (Unmatched u : unmatched) {
                byKind.computeIfAbsent(u.kind(), k -> new java.util.LinkedHashMap<>())
                        .computeIfAbsent(u.event(), k -> new java.util.ArrayList<>()).add(u);
            }
            List<String> lines = new java.util.ArrayList<>();
            byKind.forEach((kind, events) -> {
                StringBuilder line = new StringBuilder(kind).append(':');
                String sep = " ";
                for (Map.Entry<String, List<Unmatched>> e : events.entrySet()) {
                    long total = e.getValue().stream().mapToLong(Unmatched::count).sum();
                    line.append(sep).append(total).append(' ').append(e.getKey()).append(total == 1 ? "" : "s")
                            .append(" unmatched [");
                    line.append(String.join(", ", e.getValue().stream().map(u -> u.count() + " " + u.reason()).toList()))
                            .append(']');
                    sep = ", ";
                }
                lines.add(line.toString());
            });
            return lines;
        }
    }

    /**
     * Events of one kind that matched nothing, for one reason: the one count every output prints
     * ({@link Messages#unmatchedLines}), computed once at consolidation.
     *
     * @param kind   {@code tcp}, a keyed message's send region (e.g. {@code net.send}), or
     *               {@code handoff KIND} ({@code queue}, {@code thread}, {@code future}, …)
     * @param event  {@code send}, {@code receive}, {@code put} or {@code take}
     * @param reason why, in words: {@code peer not profiled}, {@code not read within the run}, …
     */
    public record Unmatched(String kind, String event, String reason, long count) {
    }

    /**
     * How the two ends of the run's TCP connections were paired (docs/BOUNDS.md, "Messages"): only a
     * paired connection's reads are matched with writes, and only with writes at unambiguous offsets.
     *
     * @param connections      connections whose two ends were paired
     * @param withoutPeer      connection ends whose other end no process recorded
     * @param ambiguous        connection ends that could not be told apart from others on the same
     *                         addresses and ports (their reads and writes match nothing)
     * @param duplicateOffsets write offsets recorded twice on one flow (neither write constrains)
     * @param droppedReceives  reads ending in the bytes of such a write, so left unmatched
     */
    public record Tcp(int connections, int withoutPeer, int ambiguous, int duplicateOffsets, int droppedReceives) {
        public static final Tcp NONE = new Tcp(0, 0, 0, 0, 0);
    }

    /**
     * What handoff matching between threads of one process found ({@code HandoffMatcher}).
     *
     * @param matched        edges: takes with their put, started threads' first events with their
     *                       {@code Thread.start}, back-pressure takes with the take that freed the space
     * @param unmatchedPuts  puts nothing took (a thread nobody joined, a task never run)
     * @param unmatchedTakes takes without a recorded put
     * @param ambiguousKeys  keys put twice in one process (no edge)
     */
    public record Handoffs(int matched, int unmatchedPuts, int unmatchedTakes, int ambiguousKeys) {
        public static final Handoffs NONE = new Handoffs(0, 0, 0, 0);
    }

    /**
     * What the agents said about the YAML's regions ({@code WeavingSummary} in each queue).
     *
     * @param unmatched the regions that matched no method, each with the processes it matched none in
     * @param unknown   one line per process that could not say (it did not end normally)
     */
    public record Weaving(List<UnmatchedRegion> unmatched, List<String> unknown) {
        public static final Weaving NONE = new Weaving(List.of(), List.of());

        public Weaving {
            unmatched = unmatched == null ? List.of() : List.copyOf(unmatched);
            unknown = unknown == null ? List.of() : List.copyOf(unknown);
        }

        /** The lines {@code dprof stats} and {@code consolidate} print: the unmatched regions, then the unknown. */
        public List<String> lines() {
            List<String> lines = new java.util.ArrayList<>();
            unmatched.forEach(r -> lines.add(r.line()));
            lines.addAll(unknown);
            return lines;
        }
    }

    /**
     * A YAML region that matched no method in some processes.
     *
     * @param reason    the reason's name ({@code NO_CLASS}, {@code NO_METHOD}, {@code DESCRIPTOR}, ...)
     * @param nearest   the existing name nearest to what was written, or empty
     * @param line      the agent's sentence, with how many of the run's processes it holds for
     * @param processes the processes ({@code host-pid}) it matched nothing in
     */
    public record UnmatchedRegion(String name, String location, String classPattern, String methodPattern,
                                  String descriptor, String reason, String nearest, String detail, String line,
                                  List<String> processes) {
    }

    /** A span in reference ticks. */
    public record Window(long fromTick, long toTick) {
    }

    /**
     * Per process and region index, the instance id the process fixed for that region at start,
     * or {@code none}.
     */
    public long[][] fixedInstances(long none) {
        long[][] table = new long[processes.size()][regions.size()];
        for (Process p : processes) {
            java.util.Arrays.fill(table[p.index()], none);
            for (Region r : regions) {
                Long fixed = p.instances().get(r.name());
                if (fixed != null) {
                    table[p.index()][r.index()] = fixed;
                }
            }
        }
        return table;
    }

    /** Reference ticks to nanoseconds at the reference's nominal rate: for display only. */
    public double ticksToNanos(double ticks) {
        return ticks * 1e9 / referenceTickHz;
    }
}
