package dev.dprof.consolidator.statsmode;

import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.consolidator.read.RegionKinds;
import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.TcpRegions;
import dev.dprof.format.TraceWindow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * Every process of a run that was recorded in statistics mode, its {@code S} records summed per
 * region (regions one by name across processes, as in the trace), each process's figures kept apart
 * in its own ticks until {@link #regions} turns them into bounds with a {@link Scale}.
 *
 * <p>Loss: a process that ended says it in its end record; a killed one said, in its last record, what
 * its rings had dropped by then, and the figures of the interval it was killed in are lost with it (at
 * most one interval's: the count is then a lower bound).
 */
public final class StatisticsModeRun {
    /** The caller of an instance entered with no region open on its thread (as the trace's statistics). */
    public static final String TOP = "(top)";

    /** Per process: its label, nominal tick rate and probe cost (ticks × 1024). */
    private final List<String> labels = new ArrayList<>();
    private final List<Double> tickHz = new ArrayList<>();
    private final List<Long> costs = new ArrayList<>();
    private final List<Boolean> ended = new ArrayList<>();
    private final List<Long> lost = new ArrayList<>();
    private long traceWindows;
    private final Map<String, RegionParts> regions = new LinkedHashMap<>();
    private final List<String> problems;
    private final RegionKinds kinds;

    /**
     * @param problems where unreadable records are reported
     * @param kinds    the run's regions by name (shared with the trace's statistics, which report conflicts)
     */
    public StatisticsModeRun(List<String> problems, RegionKinds kinds) {
        this.problems = problems;
        this.kinds = kinds;
    }

    /** Whether any process of the run was in statistics mode. */
    public boolean any() {
        return !labels.isEmpty();
    }

    public int processes() {
        return labels.size();
    }

    /**
     * A visitor for the records of one process in statistics mode, which hands every record on to
     * {@code next} too; {@code dir} names the process in problems.
     */
    public RecordVisitor visitor(ProcessHeader header, String dir, RecordVisitor next) {
        return visitor(header.host() + "-" + header.pid(), header.nominalTickHz(), header.probeCostTicksX1024(), dir, next);
    }

    /**
     * The same for a process named {@code label}, whose ticks are {@code nominalTickHz} a second (for
     * display) and whose probes cost {@code probeCostX1024} ticks × 1024; its index is the number of
     * processes added before it.
     */
    public RecordVisitor visitor(String label, double nominalTickHz, long probeCostX1024, String dir, RecordVisitor next) {
        int index = labels.size();
        labels.add(label);
        tickHz.add(nominalTickHz);
        costs.add(probeCostX1024);
        ended.add(false);
        lost.add(0L);
        Map<Integer, RegionParts> byId = new HashMap<>();
        Map<Integer, String> names = new HashMap<>();
        Map<Long, String> connections = new HashMap<>();
        return new RecordVisitor.Forwarding(next) {
            @Override
            public void region(RegionInfo region) {
                next.region(region);
                String name = kinds.mergedName(region, label);
                names.put(region.id(), name);
                byId.put(region.id(), regions.computeIfAbsent(name, n -> new RegionParts(n, region.kind())));
            }

            @Override
            public void connection(TcpConnection c) {
                next.connection(c);
                connections.put(c.connection(), TcpConnection.endpoint(c.remoteAddress(), c.remotePort()));
            }

            @Override
            public void statistics(IntervalStatistics s) {
                next.statistics(s);
                RegionParts r = byId.get(s.region());
                if (r == null) {
                    problems.add(dir + ": statistics of region " + s.region() + ", which has no region record; left out");
                    return;
                }
                try {
                    boolean tcp = r.name.equals(TcpRegions.WRITE) || r.name.equals(TcpRegions.READ);
                    r.add(index, s, id -> names.getOrDefault(id, "#" + id), channel -> tcp
                            ? label + " ⇄ " + connections.getOrDefault(channel, "connection " + channel + " (no C record)")
                            : "channel " + channel);
                } catch (FormatException e) {
                    problems.add(dir + ": statistics of region " + r.name + " skipped: " + e.getMessage());
                }
                lost.set(index, Math.max(lost.get(index), s.lostSoFar()));
            }

            @Override
            public void traceWindow(TraceWindow window) {
                next.traceWindow(window);
                traceWindows++;
            }

            @Override
            public void end(ProcessEnd end) {
                next.end(end);
                ended.set(index, true);
                lost.set(index, Math.max(lost.get(index), end.lostEvents()));
            }
        };
    }

    /** The trace windows the processes wrote (their events are in the queues, as a trace). */
    public long traceWindows() {
        return traceWindows;
    }

    /** Events the statistics-mode processes lost, as far as their records say. */
    public long lostEvents() {
        return lost.stream().mapToLong(Long::longValue).sum();
    }

    /** Whether {@link #lostEvents} is the whole loss: false when a process was killed (its last interval is lost). */
    public boolean lostExact() {
        return !ended.contains(false);
    }

    /** Each process's tick at its nominal rate in ns: bounds on its own clock, shown in ns (no calibration). */
    public Scale nominal() {
        BigFraction[] perTick = new BigFraction[labels.size()];
        for (int i = 0; i < perTick.length; i++) {
            perTick[i] = BigFraction.from(1e9 / tickHz.get(i));
        }
        return Scale.point(perTick);
    }

    /** One region's figures over the run, and the same split by caller, instance id and peer. */
    public record RegionResult(String name, String kind, BoundedFigures all, Map<String, BoundedFigures> callers,
                               Map<Long, BoundedFigures> instances, Map<String, Peer> peers, long open, long unexited,
                               long unpairedExits, long points, long leftOut, long intervals) {
    }

    /** The message events of one peer (a channel, or a TCP connection's remote end) and the instances around them. */
    public record Peer(long sends, long receives, BoundedFigures figures) {
    }

    /** The regions' figures with {@code scale}, the region with the largest total's upper bound first. */
    public List<RegionResult> regions(Scale scale) {
        List<RegionResult> out = new ArrayList<>();
        for (RegionParts r : regions.values()) {
            if (r.parts.isEmpty()) {
                continue; // a region of the table without a record: nothing happened in it
            }
            Map<Integer, TickFigures> all = new HashMap<>();
            Map<String, Map<Integer, TickFigures>> callers = new TreeMap<>();
            Map<Long, Map<Integer, TickFigures>> instances = new TreeMap<>();
            Map<String, Map<Integer, TickFigures>> peerFigures = new TreeMap<>();
            Map<String, long[]> messages = new TreeMap<>();
            long open = 0;
            long unexited = 0;
            long unpaired = 0;
            long points = 0;
            long leftOut = 0;
            long intervals = 0;
            for (Map.Entry<Integer, RegionParts.Part> e : r.parts.entrySet()) {
                int p = e.getKey();
                RegionParts.Part part = e.getValue();
                all.put(p, part.all);
                part.callers.forEach((c, f) -> callers.computeIfAbsent(c, k -> new HashMap<>()).put(p, f));
                part.instances.forEach((i, f) -> instances.computeIfAbsent(i, k -> new HashMap<>()).put(p, f));
                part.peers.forEach((c, f) -> peerFigures.computeIfAbsent(c, k -> new HashMap<>()).put(p, f));
                part.messages.forEach((c, m) -> {
                    long[] sum = messages.computeIfAbsent(c, k -> new long[2]);
                    sum[0] += m[0];
                    sum[1] += m[1];
                });
                open += part.open;
                unexited += part.unexited;
                unpaired += part.unpairedExits;
                points += part.points;
                leftOut += part.leftOut;
                intervals = Math.max(intervals, part.intervals);
            }
            Map<String, Peer> peers = new TreeMap<>();
            messages.forEach((c, m) -> peers.put(c, new Peer(m[0], m[1],
                    BoundedFigures.of(peerFigures.getOrDefault(c, Map.of()), scale))));
            out.add(new RegionResult(r.name, r.kind, BoundedFigures.of(all, scale), map(callers, scale),
                    map(instances, scale), peers, open, unexited, unpaired, points, leftOut, intervals));
        }
        out.sort((a, b) -> Double.compare(b.all().total().hi(), a.all().total().hi()));
        return out;
    }

    private static <K> Map<K, BoundedFigures> map(Map<K, Map<Integer, TickFigures>> in, Scale scale) {
        Map<K, BoundedFigures> out = new LinkedHashMap<>();
        in.forEach((k, parts) -> out.put(k, BoundedFigures.of(parts, scale)));
        return out;
    }

    /** The processes' probe costs in ns at their nominal rates (what the compensation took off per probe). */
    public List<String> probeCosts() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < labels.size(); i++) {
            lines.add(String.format(java.util.Locale.ROOT, "%s: %.1f ns per probe, measured at start", labels.get(i),
                    costs.get(i) / 1024.0 * 1e9 / tickHz.get(i)));
        }
        return lines;
    }
}
