package dev.dprof.consolidator.consolidate;

import dev.dprof.consolidator.read.Damage;
import dev.dprof.consolidator.read.LeftOutProcess;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.ThreadInfo;
import dev.dprof.format.WeavingSummary;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The consolidator's first pass: one sequential read of every process queue that learns what
 * the second pass needs — headers, region tables, threads, and every communication event
 * (sends, receives, barrier enters and exits) with its local tick, for matching and for the
 * calibration's extra constraints. Region events are counted, not kept. The queues stay open
 * ({@link Process#queue}) for the second pass, which would otherwise map every queue again; {@link #close}
 * closes them.
 */
public final class RunInventory implements AutoCloseable {
    /** Columns of {@link #communication}. */
    static final int PROCESS = 0;
    static final int THREAD = 1;
    static final int KIND = 2;
    static final int REGION = 3;
    static final int TICK = 4;
    static final int A = 5;
    static final int B = 6;

    /** One process of the run. */
    public static final class Process {
        final int index;
        final Path dir;
        final ProcessHeader header;
        final ProcessQueue queue;
        final Map<Integer, RegionInfo> regions = new LinkedHashMap<>();
        final Map<Long, String> threadNames = new LinkedHashMap<>();
        final List<Long> threads = new ArrayList<>();
        /** {@link #threads} as a set: a process with virtual threads has thousands of them. */
        final Set<Long> threadSet = new HashSet<>();
        Optional<ProcessEnd> end = Optional.empty();
        Optional<WeavingSummary> weaving = Optional.empty();
        Optional<ClockCheck> clockCheck = Optional.empty();
        /** The TCP connections the process described (format version 3), in the order written. */
        final List<TcpConnection> connections = new ArrayList<>();
        long events;

        Process(int index, Path dir, ProcessQueue queue) {
            this.index = index;
            this.dir = dir;
            this.header = queue.header();
            this.queue = queue;
        }

        /** The process's queue, open until the inventory is closed. */
        public ProcessQueue queue() {
            return queue;
        }

        public int index() {
            return index;
        }

        public Path dir() {
            return dir;
        }

        public ProcessHeader header() {
            return header;
        }

        public Map<Integer, RegionInfo> regions() {
            return regions;
        }

        public List<Long> threads() {
            return threads;
        }

        public String threadName(long thread) {
            return threadNames.getOrDefault(thread, "thread-" + thread);
        }

        public Optional<ProcessEnd> end() {
            return end;
        }

        public long events() {
            return events;
        }

        /** Whether the process's counter can be one clock domain; empty for a queue written before the check. */
        public Optional<ClockCheck> clockCheck() {
            return clockCheck;
        }

        /** What the agent wove for the YAML's regions; empty if the queue does not say. */
        public Optional<WeavingSummary> weaving() {
            return weaving;
        }

        public String label() {
            return header.host() + "-" + header.pid();
        }

        /** The TCP connections the process described; empty before format version 3. */
        public List<TcpConnection> connections() {
            return connections;
        }
    }

    private final List<Process> processes = new ArrayList<>();
    final LongColumns communication = new LongColumns(7);
    private final List<String> problems = new ArrayList<>();
    private final List<LeftOutProcess> leftOut = new ArrayList<>();

    /**
     * Scans every queue, several at a time (one task per process, as many at once as there are
     * processors): each queue is read by one thread from start to end, and the results are put
     * together in the order of {@code queues}, so the inventory is the same as a sequential scan's.
     * A queue that cannot be opened is named in {@link #problems} and left out, so one process's
     * damage stays with it (DESIGN.md, rule 3); the processes are numbered without it.
     *
     * @throws ReadException if no queue can be opened
     */
    public static RunInventory scan(List<Path> queues) throws ReadException {
        List<Callable<Object>> opening = new ArrayList<>();
        for (Path dir : queues) {
            opening.add(() -> {
                try {
                    return ProcessQueue.open(dir);
                } catch (ReadException e) {
                    return e;
                }
            });
        }
        List<Object> opened = Parallel.invokeAll("dprof-open", opening, RuntimeException.class);
        List<ProcessQueue> readable = new ArrayList<>();
        List<LeftOutProcess> leftOut = new ArrayList<>();
        ReadException first = null;
        for (int i = 0; i < opened.size(); i++) {
            Object o = opened.get(i);
            if (o instanceof ProcessQueue q) {
                readable.add(q);
            } else {
                ReadException e = (ReadException) o;
                first = first == null ? e : first;
                leftOut.add(LeftOutProcess.of(queues.get(i), e));
            }
        }
        if (readable.isEmpty() && first != null) {
            throw first;
        }
        List<Callable<Scanned>> tasks = new ArrayList<>();
        for (int i = 0; i < readable.size(); i++) {
            int index = i;
            tasks.add(() -> scanOne(index, readable.get(index)));
        }
        List<Scanned> results;
        try {
            results = Parallel.invokeAll("dprof-inventory", tasks, ReadException.class);
        } catch (ReadException | RuntimeException e) {
            readable.forEach(ProcessQueue::close);
            throw e;
        }
        RunInventory inventory = new RunInventory();
        inventory.leftOut.addAll(leftOut);
        leftOut.forEach(l -> inventory.problems.add(l.line()));
        for (Scanned scanned : results) {
            inventory.processes.add(scanned.process);
            inventory.communication.addAll(scanned.communication);
            inventory.problems.addAll(scanned.problems);
        }
        return inventory;
    }

    /** Closes every process's queue. */
    @Override
    public void close() {
        processes.forEach(p -> p.queue.close());
    }

    /** One queue's part of the inventory. */
    private record Scanned(Process process, LongColumns communication, List<String> problems) {
    }

    private static Scanned scanOne(int index, ProcessQueue queue) {
        Process process = new Process(index, queue.dir(), queue);
        LongColumns communication = new LongColumns(7);
        queue.read(new Scanner(process, communication));
        return new Scanned(process, communication, queue.problems().stream().map(Damage::line).toList());
    }

    public List<Process> processes() {
        return processes;
    }

    public List<String> problems() {
        return problems;
    }

    /** The processes whose queues could not be opened, each with what its files say it recorded. */
    public List<LeftOutProcess> leftOut() {
        return leftOut;
    }

    public long events() {
        return processes.stream().mapToLong(p -> p.events).sum();
    }

    private static final class Scanner implements RecordVisitor {
        private final Process process;
        private final LongColumns communication;

        Scanner(Process process, LongColumns communication) {
            this.process = process;
            this.communication = communication;
        }

        @Override
        public void region(RegionInfo region) {
            process.regions.put(region.id(), region);
        }

        @Override
        public void thread(ThreadInfo thread) {
            process.threadNames.put(thread.threadId(), thread.name());
        }

        @Override
        public void batch(EventBatchReader events) throws FormatException {
            long thread = events.threadId();
            if (process.threadSet.add(thread)) {
                process.threads.add(thread);
            }
            if (events.holdsNoCommunication()) {
                process.events += events.count(); // region and thread events are read in the second pass
                return;
            }
            if (events.hasCommunicationIndex()) {
                process.events += events.count();
                while (events.nextCommunication()) {
                    communication.add(process.index, thread, events.kind.code, events.region, events.tick, events.a,
                            events.b);
                }
                return;
            }
            while (events.next()) {
                process.events++;
                if (events.kind.communicates()) {
                    communication.add(process.index, thread, events.kind.code, events.region, events.tick, events.a,
                            events.b);
                }
            }
        }

        @Override
        public void weaving(WeavingSummary weaving) {
            process.weaving = Optional.of(weaving);
        }

        @Override
        public void clockCheck(ClockCheck check) {
            process.clockCheck = Optional.of(check);
        }

        @Override
        public void end(ProcessEnd end) {
            process.end = Optional.of(end);
        }

        @Override
        public void connection(TcpConnection connection) {
            process.connections.add(connection);
        }
    }
}
