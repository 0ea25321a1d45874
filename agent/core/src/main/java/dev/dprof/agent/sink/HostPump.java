package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.AgentThreads;
import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.RingMarks;
import dev.dprof.agent.bootstrap.RingVisitor;
import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.agent.bootstrap.TcpProbes;
import dev.dprof.agent.bootstrap.VirtualThreads;
import dev.dprof.agent.instrument.RegionTable;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.ByteSink;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.HostRecords;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.ThreadInfo;
import dev.dprof.format.ThreadLoss;
import dev.dprof.format.WeavingSummary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/**
 * The host's half of a drainer in its own process (docs/DESIGN.md, "The drainer in its own
 * process"): publishes in the host's records ({@link HostRecords}) what the drainer writes to the
 * queue and the rings do not hold — the header, the clock check, regions, virtual threads' names,
 * TCP connections, the agent's thread ids, the probe cost marker, the weaving summary, the host's
 * end counts — and after each pass a mark of every ring's head, read before that pass's records,
 * so that the drainer process drains no slot before what it uses. It loads nothing of Chronicle.
 *
 * <p>Rings that have no file, which the other process cannot see, are drained here, into the
 * records as batch documents; rings with a file that the other process drained to a dead thread's
 * end are freed here ({@link Rings#mark}). At the host's end (its shutdown hook) the last pass
 * stamps the ends of threads that ended, then the end counts follow; the hook then waits for the
 * drainer process, as the thread drainer's stop waits for its last drain, at most 5 s.
 *
 * <h2>Implementation notes</h2>
 * One thread, one writer; it passes as the thread drainer does (once a second with ring files, or as
 * soon as a ring is half full, {@link Rings#awaitFill}). Encoding reuses one {@link ByteSink}; a
 * record that cannot be written (a full disk) stops the pump with one line, and what follows is
 * counted by the rings (full, then dropping) and recovered from their files.
 */
public final class HostPump implements RingVisitor, Runnable, RunDrain {
    private static final int SCRATCH_EVENTS = 8192;
    /** Most passes at the host's end. */
    static final int LAST_PASSES = 8;
    /** How long the host's end waits for the drainer process to write the end record. */
    static final long DRAINER_EXIT_WAIT_MS = 5000;

    private final HostRecords.Writer records;
    private final RegionTable regions;
    private final DomainClock clock;
    private final SimulatedClock simulated;
    private final boolean withCpu;
    private final int ringEvents;
    private final long intervalNanos;
    private final Drainer.HeaderFactory header;
    private final Process drainer;
    private final Consumer<String> warn;
    private final ByteSink record = new ByteSink(1 << 16);
    private final RingMarks marks = new RingMarks();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_EVENTS * Rings.SLOT_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    /** Threads of rings without a file that are named in the records already. */
    private final Set<Long> named = new HashSet<>();
    private long[] ownWritten = new long[0];
    private long probeCostX1024;
    private long ownThreadId = -1;
    private volatile boolean running = true;
    private volatile Thread thread;
    private volatile Supplier<WeavingSummary> weaving;
    /** How long the start waits for the drainer process to open the queue and append the header. */
    static final long OPEN_WAIT_MS = 5000;
    private final java.util.concurrent.CountDownLatch opened = new java.util.concurrent.CountDownLatch(1);
    private volatile Exception openFailure;
    private final java.nio.file.Path log;
    /** Whether the end counts are published: the drainer process then ends without waiting for this JVM's exit. */
    private volatile boolean endWritten;
    /** Why a record could not be written; the pump stops then. */
    private IOException failure;
    private final String networkScope = NetworkScope.current();
    private final ObjLongConsumer<String> nameVirtualThread = (name, id) -> {
        new ThreadInfo(id, name == null ? "thread-" + id : name).encode(begin());
        append();
    };
    private final Consumer<TcpProbes.Connection> describeConnection = c -> {
        TcpConnection.encode(begin(), c.number, c.localAddress, c.localPort, c.remoteAddress, c.remotePort,
                networkScope);
        append();
    };

    public HostPump(HostRecords.Writer records, RegionTable regions, DomainClock clock, boolean withCpu,
                    int intervalMs, int ringEvents, Drainer.HeaderFactory header, Process drainer,
                    java.nio.file.Path log, Consumer<String> warn) {
        this.log = log;
        this.records = records;
        this.regions = regions;
        this.clock = clock;
        this.simulated = clock.simulated().orElse(null);
        this.withCpu = withCpu;
        this.ringEvents = ringEvents;
        this.intervalNanos = intervalMs * 1_000_000L;
        this.header = header;
        this.drainer = drainer;
        this.warn = warn;
    }

    /** What the pump publishes just before the end counts (the weaving summary); set before {@link #start}. */
    @Override
    public void beforeEnd(Supplier<WeavingSummary> summary) {
        this.weaving = summary;
    }

    /** Starts the pump's thread and the shutdown hook that ends it and waits for the drainer process. */
    @Override
    public void start() {
        // The host's half of the drainer, named as the thread drainer: its probe cost marker is the same event.
        thread = RunDrain.thread(this);
        RunDrain.start(thread, this::stop);
    }

    /**
     * Waits until the drainer process has appended the header to the queue it opened, or has ended,
     * or {@link #OPEN_WAIT_MS} passed (it is then ended); returns why it is not draining, or null.
     * Until then the pump publishes nothing but the header and the clock check, so a start that then
     * drains in its own JVM loses nothing (the region table, the rings are untouched).
     */
    @Override
    public Exception awaitOpen() throws InterruptedException {
        opened.await();
        return openFailure;
    }

    /** No warm-up in the host: the drain path runs in the drainer process. */
    @Override
    public boolean awaitWarm(long timeoutMs) {
        return true;
    }

    /** The drainer process's exit code if it has ended already (at the host's start: it could not run). */
    public java.util.OptionalInt drainerExit() {
        return drainer.isAlive() ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(drainer.exitValue());
    }

    /**
     * Ends the pump after its last pass and the end counts, then waits for the drainer process to
     * end (it writes the end record and removes the ring files), each at most 5 s.
     */
    public void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            Rings.wakeConsumer();
            try {
                t.join(DRAINER_EXIT_WAIT_MS);
                if (!endWritten) {
                    return; // the drainer process waits for this JVM's exit: waiting for it here would only delay both
                }
                if (!drainer.waitFor(DRAINER_EXIT_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    warn.accept("the drainer process did not end within " + DRAINER_EXIT_WAIT_MS + " ms; the"
                            + " readers recover what it did not write from the ring files");
                } else if (drainer.exitValue() != 0) {
                    warn.accept("the drainer process ended with exit code " + drainer.exitValue() + " (its lines are"
                            + " in drainer.log); the readers recover what it did not write from the ring files");
                } else {
                    // Rings made after the drainer's end would leave files no one removes.
                    Rings.removeRingFiles();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        ownThreadId = Thread.currentThread().getId();
        Rings.markThreadPrivate();
        try {
            writeHeader();
            ClockCheck check = CounterCheck.run(Rings.NATIVE);
            check.encode(begin());
            append();
            check.fault().ifPresent(f -> warn.accept(f + "; the consolidator gives this domain no bounds"));
            openFailure = awaitDrainer();
            opened.countDown();
            if (openFailure != null) {
                return;
            }
            while (running && failure == null) {
                pass(false);
                if (!Rings.awaitFill(Drainer.DURABLE_PASS_NANOS)) {
                    LockSupport.parkNanos(intervalNanos);
                }
            }
            if (failure == null) {
                lastPasses();
                writeEnd();
            }
        } catch (Throwable t) {
            warn.accept("profiling stopped: " + t + "; the application runs on, events from now on are lost");
            return;
        } finally {
            if (openFailure == null && failure != null) {
                openFailure = failure;
            }
            opened.countDown();
            records.close();
        }
        if (failure != null) {
            warn.accept("cannot write the host's records (" + failure.getMessage() + "); events from now on are"
                    + " counted as lost by the rings, and the run has no end record");
        }
    }

    /** See {@link #awaitOpen}: null once the header is in the drainer process's queue, else why not. */
    private Exception awaitDrainer() throws InterruptedException {
        long deadline = System.nanoTime() + OPEN_WAIT_MS * 1_000_000L;
        while (records.consumed() == 0) {
            if (failure != null) {
                drainer.destroyForcibly();
                return failure;
            }
            if (!drainer.isAlive()) {
                return new IOException("the drainer process ended at its start, exit code " + drainer.exitValue()
                        + firstLogLine());
            }
            if (System.nanoTime() - deadline > 0) {
                drainer.destroyForcibly();
                drainer.waitFor(DRAINER_EXIT_WAIT_MS, TimeUnit.MILLISECONDS);
                return new IOException("the drainer process had not opened the queue after " + OPEN_WAIT_MS + " ms");
            }
            Thread.sleep(10);
        }
        return null;
    }

    /** ": LINE", the drainer process's first line in its log, or nothing. */
    private String firstLogLine() {
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(log)) {
            return lines.findFirst().map(l -> ": " + l).orElse("");
        } catch (IOException | java.io.UncheckedIOException e) {
            return "";
        }
    }

    private void writeHeader() throws InterruptedException {
        double hz = TickRate.measure(clock::now, 10);
        probeCostX1024 = ProbeCost.measure(clock, ringEvents);
        header.create(hz, probeCostX1024).encode(begin());
        append();
    }

    /**
     * Marks every ring's head, then publishes what was registered (whatever a slot below those
     * heads uses was registered before the slot was stored), then the mark itself.
     */
    private void pass(boolean last) {
        Rings.mark(marks, last, this, scratch);
        writeRegistered();
        HostRecords.encodeMark(begin(), marks.threadIds(), marks.heads(), marks.endTicks(), marks.count());
        append();
    }

    /**
     * The passes at the host's end: until the heads stop moving (at most {@link #LAST_PASSES}), for
     * the reason the thread drainer's last drain passes until one finds nothing ({@code Rings#drainLast}):
     * a handoff between two threads of the shutdown must have its put marked when its take is.
     */
    private void lastPasses() {
        long before = -1;
        for (int pass = 0; pass < LAST_PASSES; pass++) {
            pass(true);
            long sum = 0;
            for (int i = 0; i < marks.count(); i++) {
                sum += marks.heads()[i];
            }
            if (sum == before) {
                return;
            }
            before = sum;
        }
    }

    private void writeRegistered() {
        for (RegionInfo r = regions.pollUnwritten(); r != null; r = regions.pollUnwritten()) {
            r.encode(begin());
            append();
        }
        VirtualThreads.drainStarted(nameVirtualThread);
        TcpProbes.drainOpened(describeConnection);
        long[] own = AgentThreads.ownIds();
        if (!Arrays.equals(own, ownWritten)) {
            HostRecords.encodeAgentThreads(begin(), own);
            append();
            ownWritten = own;
        }
    }

    /** A ring without a file, drained here: its batch goes into the records, after what it uses. */
    @Override
    public void batch(long threadId, ByteBuffer slots, int count, long lostSoFar, boolean threadEnded) {
        if (threadId == ownThreadId || AgentThreads.isOwnId(threadId)) {
            return;
        }
        if (count > 0) {
            writeRegistered();
            if (named.add(threadId)) {
                String name = Rings.threadName(threadId);
                new ThreadInfo(threadId, name == null ? "thread-" + threadId : name).encode(begin());
                append();
            }
            EventBatchEncoder.encode(begin(), threadId, slots, count, simulated, withCpu);
            append();
        }
        if (lostSoFar > 0) {
            ThreadLoss.encode(begin(), threadId, lostSoFar);
            append();
        }
    }

    /** The probe cost marker, the weaving summary and the host's end counts, after the last mark. */
    private void writeEnd() {
        new ThreadInfo(ownThreadId, Thread.currentThread().getName()).encode(begin());
        append();
        EventBatchEncoder.encode(begin(), ownThreadId, ProbeCost.markerSlot(clock, probeCostX1024), 1, simulated,
                withCpu);
        append();
        Supplier<WeavingSummary> summary = weaving;
        if (summary != null) {
            try {
                summary.get().encode(begin());
                append();
            } catch (RuntimeException e) {
                warn.accept("cannot say what was woven (" + e + ")");
            }
        }
        HostRecords.encodeHostEnd(begin(), new HostRecords.HostEnd(Probes.failures(), Rings.totalLost(), clock.now()));
        append();
        endWritten = failure == null;
    }

    /** The emptied buffer of the next record, which {@link #append} publishes. */
    private ByteSink begin() {
        record.clear();
        return record;
    }

    private void append() {
        if (failure != null) {
            return;
        }
        try {
            records.append(record);
        } catch (IOException e) {
            failure = e;
        }
    }
}
