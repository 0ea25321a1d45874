package dev.dprof.consolidator.stats;

import dev.dprof.consolidator.read.Damage;
import dev.dprof.consolidator.read.ProcessLoss;
import dev.dprof.consolidator.read.LeftOutProcess;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.consolidator.read.RegionKinds;
import dev.dprof.consolidator.read.WeavingReports;
import dev.dprof.consolidator.statsmode.StatisticsModeRun;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.WeavingSummary;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-region count and inclusive times straight from the process queues, with no calibration:
 * a duration inside one thread needs only that thread's clock. Regions are matched by name
 * across processes. A recursive entry into a region already open on the thread is counted once,
 * with the outermost call's time. What the processes lost, and the regions a killed process
 * left open, are reported beside the figures.
 */
public final class RunStatistics {
    private final Map<String, RegionStats> regions = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private final List<LeftOutProcess> leftOut = new ArrayList<>();
    private final RegionKinds kinds = new RegionKinds(problems);
    private final WeavingReports weaving = new WeavingReports();
    private final StatisticsModeRun statisticsMode = new StatisticsModeRun(problems, kinds);
    private long lostEvents;
    private boolean lostExact = true;
    private long events;
    private int processes;
    private int openRegions;
    private int unfinishedProcesses;

    /**
     * The figures of every queue that can be read. A queue that cannot be opened at all (say, of a
     * process killed after creating its queue and before writing its header) is named in
     * {@link #problems()} and left out, so the intact ones still count (DESIGN.md, rule 3).
     *
     * @throws ReadException if there are queues and none of them can be read
     */
    public static RunStatistics of(List<Path> queues) throws ReadException {
        RunStatistics stats = new RunStatistics();
        ReadException first = null;
        for (Path dir : queues) {
            try (ProcessQueue queue = ProcessQueue.open(dir)) {
                stats.add(queue);
            } catch (ReadException e) {
                first = first == null ? e : first;
                LeftOutProcess left = LeftOutProcess.of(dir, e);
                stats.problems.add(left.line());
                stats.leftOut.add(left);
                stats.lostEvents += left.count().events();
                stats.lostExact &= left.count().exact();
            }
        }
        if (first != null && stats.processes == 0) {
            throw first;
        }
        return stats;
    }

    private void add(ProcessQueue queue) {
        processes++;
        ProcessVisitor visitor = new ProcessVisitor(queue.header());
        queue.read(queue.header().statisticsMode()
                ? statisticsMode.visitor(queue.header(), queue.dir().toString(), visitor) : visitor);
        queue.problems().forEach(p -> problems.add(Damage.line(p)));
        ProcessLoss.Counted loss = queue.loss();
        lostEvents += loss.events();
        lostExact &= loss.exact();
        weaving.add(label(visitor.header), visitor.weaving, visitor.ended);
        for (ThreadStack stack : visitor.threads.values()) {
            openRegions += stack.depth;
            visitor.countOpen(stack);
        }
        if (!visitor.ended) {
            unfinishedProcesses++;
            problems.add(queue.dir() + ": the process did not end normally (killed?); "
                    + queue.recovered().map(r -> r + "; ").orElse("")
                    + loss.phrase() + (loss.reason().isEmpty() ? "" : " (" + loss.reason() + ")") + "; "
                    + visitor.openRegions() + " regions were still open and are left out");
        }
    }

    public List<RegionStats> regions() {
        List<RegionStats> sorted = new ArrayList<>(regions.values());
        sorted.sort(Comparator.comparingDouble(RegionStats::totalNs).reversed());
        return sorted;
    }

    /** Events the processes recorded and nobody reads (ProcessQueue#loss), a lower bound unless {@link #lostExact}. */
    public long lostEvents() {
        return lostEvents;
    }

    /** Whether {@link #lostEvents} is the whole loss: false when damaged ring files hide more. */
    public boolean lostExact() {
        return lostExact;
    }

    /** "N lost" or "at least N lost". */
    public String lostPhrase() {
        return (lostExact ? "" : "at least ") + lostEvents + " lost";
    }

    public long events() {
        return events;
    }

    public int processes() {
        return processes;
    }

    public int openRegions() {
        return openRegions;
    }

    public int unfinishedProcesses() {
        return unfinishedProcesses;
    }

    public List<String> problems() {
        return problems;
    }

    /** The processes left out (their queues cannot be opened), each with what its files say it recorded. */
    public List<LeftOutProcess> leftOut() {
        return leftOut;
    }

    /** The processes recorded in statistics mode, their interval records summed per region. */
    public StatisticsModeRun statisticsMode() {
        return statisticsMode;
    }

    /** The YAML regions that matched no method, and the processes that cannot say. */
    public WeavingReports weaving() {
        return weaving;
    }

    private static String label(ProcessHeader header) {
        return header.host() + "-" + header.pid();
    }

    /** The open regions of one thread: region ids and enter ticks. */
    private static final class ThreadStack {
        int[] regions = new int[16];
        long[] ticks = new long[16];
        int depth;

        void push(int region, long tick) {
            if (depth == regions.length) {
                regions = java.util.Arrays.copyOf(regions, depth * 2);
                ticks = java.util.Arrays.copyOf(ticks, depth * 2);
            }
            regions[depth] = region;
            ticks[depth++] = tick;
        }

        int find(int region) {
            for (int i = depth - 1; i >= 0; i--) {
                if (regions[i] == region) {
                    return i;
                }
            }
            return -1;
        }
    }

    private final class ProcessVisitor implements RecordVisitor {
        private final ProcessHeader header;
        private final Map<Integer, RegionStats> byId = new HashMap<>();
        private final Map<Long, ThreadStack> threads = new HashMap<>();
        private boolean ended;
        private WeavingSummary weaving;
        private long lastTick = Long.MIN_VALUE;

        ProcessVisitor(ProcessHeader header) {
            this.header = header;
        }

        int openRegions() {
            return threads.values().stream().mapToInt(t -> t.depth).sum();
        }

        @Override
        public void region(RegionInfo region) {
            byId.put(region.id(), regions.computeIfAbsent(kinds.mergedName(region, label(header)), RegionStats::new));
        }

        @Override
        public void weaving(WeavingSummary summary) {
            weaving = summary;
        }

        @Override
        public void batch(EventBatchReader events) throws FormatException {
            ThreadStack stack = threads.computeIfAbsent(events.threadId(), t -> new ThreadStack());
            while (events.next()) {
                RunStatistics.this.events++;
                lastTick = Math.max(lastTick, events.tick);
                switch (events.kind) {
                    case ENTER, ENTER_INSTANCE, BARRIER_ENTER -> stack.push(events.region, events.tick);
                    case EXIT, EXIT_THROW, BARRIER_EXIT -> exit(stack, events.region, events.tick);
                    default -> {
                        // point events carry no duration
                    }
                }
            }
        }

        private void exit(ThreadStack stack, int region, long tick) {
            int at = stack.find(region);
            if (at < 0) {
                return;
            }
            long enterTick = stack.ticks[at];
            stack.depth = at;
            RegionStats stats = byId.get(region);
            if (stats != null && stack.find(region) < 0) {
                stats.add(header.ticksToNanos(tick - enterTick));
            }
        }

        /** The thread's instances still open, each counted once (a recursive entry is the outermost's). */
        void countOpen(ThreadStack stack) {
            for (int i = 0; i < stack.depth; i++) {
                RegionStats stats = byId.get(stack.regions[i]);
                boolean outermost = true;
                for (int j = 0; j < i; j++) {
                    outermost &= stack.regions[j] != stack.regions[i];
                }
                if (stats != null && outermost) {
                    stats.addOpen(header.ticksToNanos(Math.max(0, lastTick - stack.ticks[i])));
                }
            }
        }

        @Override
        public void end(ProcessEnd end) {
            ended = true;
        }
    }
}
