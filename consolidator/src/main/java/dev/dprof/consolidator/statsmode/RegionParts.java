package dev.dprof.consolidator.statsmode;

import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.function.LongFunction;

/**
 * One region (by name) over a run in statistics mode: per process its summed figures, and the same
 * split by caller region, instance id and channel. Processes stay apart: each has its own clock.
 */
final class RegionParts {
    /** One process's share of the region. */
    static final class Part {
        final TickFigures all = new TickFigures();
        final Map<String, TickFigures> callers = new TreeMap<>();
        final Map<Long, TickFigures> instances = new TreeMap<>();
        /** Per peer's label: sends and receives. */
        final Map<String, long[]> messages = new TreeMap<>();
        final Map<String, TickFigures> peers = new TreeMap<>();
        long intervals;
        long open;
        long unexited;
        long unpairedExits;
        long points;
        long leftOut;
        long firstTick = Long.MAX_VALUE;
        long lastTick = Long.MIN_VALUE;
    }

    final String name;
    final String kind;
    /** Per process index. */
    final Map<Integer, Part> parts = new LinkedHashMap<>();

    RegionParts(String name, String kind) {
        this.name = name;
        this.kind = kind;
    }

    /**
     * Adds one record of process {@code process}; {@code callerName} names a caller region by id, {@code
     * peerName} a channel.
     */
    void add(int process, IntervalStatistics s, IntFunction<String> callerName, LongFunction<String> peerName)
            throws FormatException {
        Part p = parts.computeIfAbsent(process, k -> new Part());
        p.intervals++;
        p.all.add(s.all());
        if (s.all().count() > 0) {
            p.firstTick = Math.min(p.firstTick, s.firstTick());
            p.lastTick = Math.max(p.lastTick, s.lastTick());
        }
        // A gauge: the last interval's says what was open when the process's last record was written.
        p.open = s.open();
        p.unexited += s.unexited();
        p.unpairedExits += s.unpairedExits();
        p.points += s.points();
        p.leftOut += s.callersLeftOut() + s.instancesLeftOut() + s.peersLeftOut();
        for (IntervalStatistics.Caller c : s.callers()) {
            String caller = c.caller() == IntervalStatistics.TOP ? StatisticsModeRun.TOP : callerName.apply(c.caller());
            p.callers.computeIfAbsent(caller, k -> new TickFigures()).add(c.figures());
        }
        for (IntervalStatistics.Instance i : s.instances()) {
            p.instances.computeIfAbsent(i.instance(), k -> new TickFigures()).add(i.figures());
        }
        for (IntervalStatistics.Peer peer : s.peers()) {
            String name = peerName.apply(peer.channel());
            long[] m = p.messages.computeIfAbsent(name, k -> new long[2]);
            m[0] += peer.sends();
            m[1] += peer.receives();
            p.peers.computeIfAbsent(name, k -> new TickFigures()).add(peer.figures());
        }
    }
}
