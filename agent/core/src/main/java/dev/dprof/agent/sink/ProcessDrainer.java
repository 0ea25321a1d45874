package dev.dprof.agent.sink;

import dev.dprof.clock.ClockSource;
import dev.dprof.format.ByteSource;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventCodes;
import dev.dprof.format.FormatException;
import dev.dprof.format.HostRecords;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RecordType;
import dev.dprof.format.RingFile;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * The drainer in a process of its own (docs/DESIGN.md, "The drainer in its own process"): appends
 * the host's records ({@link HostRecords}) and its ring files ({@link RingFileView}) to the run's
 * queue, in the order the queue promises. Each record is copied as it is; a mark lets each ring be
 * drained up to the head it names, since everything its slots below that use came before the mark.
 * After the host's end counts (a normal exit) it drains every ring to its head, stamps the ends the
 * host's last mark gives, writes the end record and removes the ring files and the records. A host
 * that exits without them was killed: the rings are drained to their heads too, and no end record
 * is written, so the readers see a killed process, now with every event it recorded in the queue
 * (its ring files stay, for the count of what it lost).
 *
 * <p>Started by the host's agent ({@link DrainerProcess}) with {@code DIR PID RESERVE}: the run's
 * directory, the host's pid, the disk reserve in bytes. Its lines go to {@code drainer.log} there.
 *
 * <h2>Implementation notes</h2>
 * One thread. It polls the records every {@link #POLL_NANOS} (a load of {@code committed}); the
 * host's pump passes at its drain interval, so the rings wait for the pump's mark, not for this poll.
 * A ring's file is mapped when a mark first names its thread, and unmapped when its thread is dead
 * and it is drained.
 */
public final class ProcessDrainer {
    static final long POLL_NANOS = 20_000_000L;
    /** Passes of the last drain, as the thread drainer's ({@code Rings.LAST_PASSES}). */
    static final int LAST_PASSES = 8;
    private static final int SCRATCH_EVENTS = 8192;

    private final Path ringDir;
    private final QueueSink sink;
    private final CompletableFuture<ProcessHandle> hostExit;
    private final HostRecords.Cursor cursor;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_EVENTS * EventBatchEncoder.SLOT_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    private final Map<Long, RingFileView> rings = new HashMap<>();
    /** Files mapped, or found not to be the application's: not opened again. */
    private final Set<Path> seen = new HashSet<>();
    /** Each thread's head in the latest mark: how far its ring may be drained. */
    private final Map<Long, Long> marked = new HashMap<>();
    /** At the host's end, the threads whose ends the last mark stamps. */
    private final Map<Long, Long> endTicks = new HashMap<>();
    private final Set<Long> agentThreads = new HashSet<>();
    private BatchWriter out;
    private HostRecords.HostEnd hostEnd;
    private boolean recordsBroken;
    private final EventBatchReader batchReader = new EventBatchReader();

    private ProcessDrainer(Path dir, QueueSink sink, CompletableFuture<ProcessHandle> hostExit) {
        this.ringDir = dir.resolve(RingFile.DIRECTORY);
        this.sink = sink;
        this.hostExit = hostExit;
        this.cursor = new HostRecords.Cursor(ringDir);
    }

    /** {@code DIR PID RESERVE}; exits 0 once its work is done, 1 if it could not do it (said on stderr). */
    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("dprof drainer: expected DIR PID RESERVE_BYTES, found " + List.of(args));
            System.exit(2);
        }
        // The host's group gets the terminal's signals (a ^C): this process ends after its host, not with it.
        for (String signal : List.of("INT", "TERM", "HUP")) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(signal), sun.misc.SignalHandler.SIG_IGN);
            } catch (IllegalArgumentException e) {
                // not a signal on this platform
            }
        }
        Path dir = Path.of(args[0]);
        long pid = Long.parseLong(args[1]);
        long reserve = Long.parseLong(args[2]);
        CompletableFuture<ProcessHandle> exit = ProcessHandle.of(pid).map(ProcessHandle::onExit)
                .orElse(CompletableFuture.completedFuture(null));
        try (QueueSink sink = QueueSink.openBesideHost(dir, reserve)) {
            new ProcessDrainer(dir, sink, exit).run();
        } catch (IOException | RuntimeException e) {
            System.err.println("dprof drainer: cannot write the event queue in " + dir + " (" + e + ")");
            System.exit(1);
        }
        if (DprofSettings.debug()) {
            // What this process cost, for the start-up benchmark: the host's getrusage adds it to the host's.
            warn("CPU " + ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis() + " ms").orElse("unknown")
                    + ", peak RSS " + peakRss());
        }
        System.exit(0);
    }

    private void run() throws IOException {
        while (true) {
            boolean hostGone = hostExit.isDone();
            boolean any = readRecords();
            if (hostEnd != null || hostGone) {
                if (hostGone) {
                    readRecords(); // what the host published before it exited
                }
                finish();
                return;
            }
            if (!any) {
                LockSupport.parkNanos(POLL_NANOS);
            }
        }
    }

    /** Copies what the host published since the last call, draining rings at each mark; true if anything came. */
    private boolean readRecords() throws IOException {
        if (recordsBroken) {
            return false;
        }
        boolean any = false;
        try {
            for (ByteBuffer r = cursor.next(); r != null; r = cursor.next()) {
                any = true;
                record(r);
            }
        } catch (FormatException e) {
            recordsBroken = true;
            warn("the host's records cannot be read on (" + e.getMessage() + "); the rings are drained at the"
                    + " host's exit, and the run has no end record");
        }
        cursor.consumed();
        return any;
    }

    private void record(ByteBuffer r) throws FormatException, IOException {
        int type = r.get(0) & 0xFF;
        switch (type) {
            case HostRecords.MARK -> {
                for (HostRecords.Mark m : HostRecords.decodeMark(source(r))) {
                    // A ring whose thread's end a mark stamped ends at that mark: beyond it may come
                    // only the THREAD_END the stamp stands for.
                    if (!endTicks.containsKey(m.threadId())) {
                        marked.put(m.threadId(), m.head());
                        if (m.endTick() != 0) {
                            endTicks.put(m.threadId(), m.endTick());
                        }
                    }
                }
                drainRings(false);
            }
            case HostRecords.AGENT_THREADS -> {
                for (long id : HostRecords.decodeAgentThreads(source(r))) {
                    agentThreads.add(id);
                }
            }
            case HostRecords.HOST_END -> hostEnd = HostRecords.HostEnd.decode(source(r));
            case RecordType.HEADER -> {
                ProcessHeader header = ProcessHeader.decode(source(r));
                out = new BatchWriter(sink, header.simulatedClock().orElse(null),
                        header.clockSource() == ClockSource.RDTSCP, ProcessDrainer::warn, this::threadName);
                out.document(r, 0);
            }
            case RecordType.BATCH -> {
                // A ring without a file, drained by the host's pump, or the probe cost marker.
                byte[] body = new byte[r.remaining()];
                r.duplicate().get(body);
                out.document(r, batchReader.reset(body, 1, body.length - 1).count());
            }
            default -> {
                if (out == null) {
                    throw new FormatException("a record of type '" + (char) type + "' before the header");
                }
                out.document(r, 0);
            }
        }
    }

    private static ByteSource source(ByteBuffer r) {
        return new ByteSource(r.duplicate().position(1));
    }

    private String threadName(long threadId) {
        RingFileView v = rings.get(threadId);
        return v == null ? null : v.name();
    }

    /**
     * Drains each ring to the head its thread's last mark names; with {@code toHead} (the host has
     * ended, or exited) to the head itself. Returns how many events were drained.
     */
    private int drainRings(boolean toHead) throws IOException {
        if (out == null) {
            return 0;
        }
        if (marked.keySet().stream().anyMatch(t -> !rings.containsKey(t) && !agentThreads.contains(t)) || toHead) {
            scan();
        }
        int drained = 0;
        List<Long> finished = new ArrayList<>();
        for (RingFileView ring : rings.values()) {
            long tid = ring.threadId();
            boolean dead = ring.dead();
            long head = ring.head();
            long limit = toHead ? head : Math.min(head, marked.getOrDefault(tid, ring.tail()));
            drained += drain(ring, limit);
            long lost = ring.lost();
            if (lost > ring.lossWritten && !agentThreads.contains(tid)) {
                out.loss(tid, lost);
                ring.lossWritten = lost;
            }
            if (dead && ring.tail() == head) {
                finished.add(tid);
            }
        }
        for (long tid : finished) {
            rings.remove(tid);
        }
        return drained;
    }

    private int drain(RingFileView ring, long limit) {
        int drained = 0;
        while (true) {
            int n = ring.copy(scratch, limit, SCRATCH_EVENTS);
            if (n == 0) {
                return drained;
            }
            if (!agentThreads.contains(ring.threadId())) {
                out.batch(ring.threadId(), scratch, n);
            }
            ring.consume(n);
            drained += n;
        }
    }

    /** Maps the ring files not yet seen whose rings are bound to their threads. */
    private void scan() throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(ringDir, "*" + RingFile.SUFFIX)) {
            stream.forEach(files::add);
        }
        for (Path f : files) {
            if (seen.contains(f)) {
                continue;
            }
            RingFileView v;
            try {
                v = RingFileView.open(f);
            } catch (IOException e) {
                seen.add(f);
                warn(e.getMessage() + "; its events are left to the readers' recovery");
                continue;
            }
            if (v == null) {
                continue; // not yet made or bound: the next scan
            }
            seen.add(f);
            if (!v.agentOwn()) {
                rings.put(v.threadId(), v);
            }
        }
    }

    /**
     * After the host's end counts: the rings were drained to its last mark as it came (what they
     * hold beyond it was recorded after the host's last pass, which the thread drainer never writes
     * either); the ends the mark stamps, the end record, and the ring files and records removed.
     * After an exit without them (a kill): every ring to its head, in passes until one finds
     * nothing, and no end record.
     */
    private void finish() throws IOException {
        if (out == null) {
            warn("the host ended before it published its header; nothing is written");
            return;
        }
        if (hostEnd == null) {
            for (int pass = 0; pass < LAST_PASSES && drainRings(true) > 0; pass++) {
                // until a pass finds nothing new
            }
            return; // killed: no end record, the ring files stay for the count of what was lost
        }
        for (Map.Entry<Long, Long> e : endTicks.entrySet()) {
            // Its thread had ended when the mark was made and runs no Java code: what its ring may get
            // after the marked head is the THREAD_END of its pthread destructor, which the stamp stands for.
            // A ring unmapped already was drained to its own end; one whose last marked slot is its
            // THREAD_END (the destructor stored it just before the head was read) needs no stamp.
            RingFileView ring = rings.get(e.getKey());
            long head = marked.getOrDefault(e.getKey(), 0L);
            if (ring != null && head > 0 && ring.tail() == head
                    && (ring.headerAt(head - 1) & EventCodes.KIND_MASK) != EventCodes.THREAD_END) {
                stampEnd(ring.threadId(), e.getValue());
            }
        }
        out.end(hostEnd.endTick(), hostEnd.ringLost(), hostEnd.failedProbes());
        removeFiles();
    }

    private void stampEnd(long threadId, long tick) {
        scratch.clear();
        scratch.putLong(0, tick);
        scratch.putInt(8, EventCodes.THREAD_END);
        scratch.putInt(12, 0);
        scratch.putLong(16, 0);
        scratch.putLong(24, 0);
        scratch.limit(EventBatchEncoder.SLOT_BYTES);
        if (!agentThreads.contains(threadId)) {
            out.batch(threadId, scratch, 1);
        }
    }

    private void removeFiles() {
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(ringDir)) {
            for (Path f : stream) {
                String name = f.getFileName().toString();
                if (name.endsWith(RingFile.SUFFIX) || name.endsWith(HostRecords.SUFFIX)) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            warn("cannot remove the ring files in " + ringDir + " (" + e.getMessage() + "); the readers ignore them"
                    + " after the end record");
        }
    }

    /** {@code VmHWM} of this process, as the kernel states it. */
    private static String peakRss() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM:"))
                    .map(l -> l.substring("VmHWM:".length()).trim()).findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static void warn(String line) {
        System.err.println("dprof drainer: " + line);
    }
}
