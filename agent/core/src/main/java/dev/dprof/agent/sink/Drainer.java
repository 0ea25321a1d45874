package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.AgentThreads;
import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.RingVisitor;
import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.agent.bootstrap.TcpProbes;
import dev.dprof.agent.bootstrap.VirtualThreads;
import dev.dprof.agent.instrument.RegionTable;
import dev.dprof.agent.stats.RecordOut;
import dev.dprof.agent.stats.StatisticsAggregator;
import dev.dprof.agent.stats.StatisticsMode;
import dev.dprof.clock.DomainClock;
import dev.dprof.format.ByteSink;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.WeavingSummary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/**
 * Moves events from the per-thread rings to the process's queue, off the application's threads:
 * each thread's pending events become one compact batch document.
 *
 * <p>When to pass over the rings. With ring files ({@link Rings#durable}) nothing the probes record
 * needs the drainer to survive a {@code kill -9}: the rings are shared mappings of files, and the
 * reader recovers what is not in the queue from them. So the drainer passes once every
 * {@link #DURABLE_PASS_NANOS}, or as soon as a ring is half full ({@link Rings#awaitFill}), and a
 * K-Means worker's run costs it a pass or two instead of one per burst of events. Without ring files
 * (the Java rings, a ring directory that could not be made, a ring whose file could not be
 * allocated) it passes every {@code drainIntervalMs}, the bound on what a {@code kill -9} loses then.
 * A pass that filled its scratch buffer is followed by another at once.
 *
 * <p>It opens the process's queue itself, first thing on its own thread, so that the agent's start
 * prepares its weaving meanwhile (Chronicle's first queue costs a fresh JVM a few hundred ms of class
 * loading; BENCHMARKS.md, "Start-up and memory"); a queue that cannot be opened ends the drainer at
 * once, and {@link #openFailure} says why. Before the first batch it writes the process header, with the nominal tick rate and the
 * probe cost measured here, on this thread: the measuring probes go to this thread's own ring,
 * whose events are never written to the process's queue. Then it warms itself up: it records
 * probe events of every kind on this thread and drains them through its own path into a scratch
 * queue in a temporary directory, deleted afterwards, until the JIT has compiled that path; the
 * agent waits for this before {@code main} ({@link #awaitWarm}), so the compilation is not paid
 * inside the application's run. The warm-up is optional ({@code warmDir} null skips it). Then, while
 * the application starts, it checks the counter ({@link CounterCheck}, a few ms) and writes the result
 * ({@link ClockCheck}) before its first pass.
 *
 * <h2>Implementation notes</h2>
 * One instance, one thread: it is the single consumer the rings require. Encoding reuses one
 * {@link dev.dprof.format.ByteSink} and one direct scratch buffer, so draining allocates only per
 * new thread. A virtual thread's name is written once, when it was started ({@link VirtualThreads}),
 * and nothing of it is kept here: its events are in its carriers' batches. A ring's loss count
 * reaches the queue as it grows ({@link dev.dprof.format.ThreadLoss}), not only in the end record, so a
 * killed process's loss is counted from its queue and its ring files.
 *
 * <p>In statistics mode ({@link #statisticsMode}) every batch goes to a {@link StatisticsAggregator}, and to
 * the queue only within trace windows (or always, when the tests ask for both); {@link StatisticsMode} says
 * when, and how long the drainer may wait until its next record is due.
 */
public final class Drainer implements RingVisitor, Runnable, RunDrain {
    private static final int SCRATCH_EVENTS = 8192;
    /**
     * Drain passes of the warm-up: enough for C1 to compile the drain, encode and append path, not
     * for C2, whose compilations (180 ms of compiler time per JVM with 12 000 passes) were still
     * queued when the application started and ran beside it.
     */
    static final int WARM_PASSES = 1_500;
    /** The warm-up stops early after this long, e.g. on a machine too loaded for it. */
    static final long WARM_BUDGET_NANOS = 1_500_000_000L;
    /** Every so many warm-up passes, a batch of a thread not seen before and probes on a new thread. */
    private static final int NEW_THREAD_EVERY = 100;
    /**
     * How often the drainer passes over durable rings when none fills up: it bounds how long the
     * ring of an ended thread stays mapped, and how far the queue lags behind a running process.
     */
    static final long DURABLE_PASS_NANOS = 1_000_000_000L;

    private final Opener opener;
    /** The process's queue, once the drainer's thread opened it. */
    private QueueSink sink;
    /** Why the queue could not be opened; set before {@link #opened} counts down. */
    private volatile Exception openFailure;
    private final CountDownLatch opened = new CountDownLatch(1);
    private final RegionTable regions;
    private final DomainClock clock;
    private final boolean withCpu;
    private final int ringEvents;
    private final HeaderFactory header;
    private final Consumer<String> warn;
    private final Path warmDir;
    /** The process's queue; the scratch queue during the warm-up; null until the queue is open. */
    private BatchWriter out;
    private final long intervalNanos;
    private final CountDownLatch warm = new CountDownLatch(1);
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_EVENTS * Rings.SLOT_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    private volatile boolean running = true;
    /** The probe cost measured for the header, written again as an event at the end (drainer thread only). */
    private long probeCostX1024;
    private volatile Thread thread;
    private long ownThreadId = -1;
    /** While the warm-up writes into its scratch queue (the drainer thread only). */
    private boolean warming;
    /** The warm-up's short-lived threads, whose events never go to the process's queue. */
    private final long[] warmupThreads = new long[WARM_PASSES / NEW_THREAD_EVERY + 1];
    private int warmupThreadCount;
    private boolean sawFullScratch;
    /**
     * The last loss record written: a thread that loses nothing more is not repeated while it is the
     * only one losing. Remembering one thread, not every thread, keeps the drain allocation-free; with
     * several threads losing at once a record follows each of their batches, a few bytes beside thousands.
     */
    private long lastLossThread = Long.MIN_VALUE;
    private long lastLoss;
    /** What was woven, asked for once at the end, before the end record; null writes none. */
    private volatile Supplier<WeavingSummary> weaving;
    /** Writes a started virtual thread's name; a field, so that naming allocates no lambda per batch. */
    private final ObjLongConsumer<String> nameVirtualThread = (name, id) -> out.nameVirtualThread(id, name);
    /** The network namespace this process lives in, written with each TCP connection. */
    private final String networkScope = NetworkScope.current();
    /** Describes a TCP connection; a field, so that describing allocates no lambda per batch. */
    private final Consumer<TcpProbes.Connection> describeConnection = c -> out.connection(c, networkScope);
    /** Statistics mode, null for a trace; set before {@link #start}. */
    private StatisticsMode statisticsMode;
    /** The stored clock, for statistics mode's records; a field, so that asking allocates no lambda per pass. */
    private final LongSupplier storedTick;
    /** Statistics mode's aggregator (the warm-up's own while it runs); null for a trace. */
    private StatisticsAggregator statistics;
    /** The aggregator's records go to the writer of the moment (the warm-up's scratch queue, then the process's). */
    private final RecordOut records = new RecordOut() {
        @Override
        public ByteSink start() {
            return out.start();
        }

        @Override
        public void append() {
            out.append(0);
        }
    };

    /**
     * @param opener opens the process's queue, on the drainer's thread
     * @param warmDir where the warm-up creates (and deletes) its scratch queue; null to skip the warm-up
     */
    public Drainer(Opener opener, RegionTable regions, DomainClock clock, boolean withCpu, int intervalMs,
                   int ringEvents, HeaderFactory header, Path warmDir, Consumer<String> warn) {
        this.opener = opener;
        this.regions = regions;
        this.clock = clock;
        this.storedTick = clock::now;
        this.withCpu = withCpu;
        this.ringEvents = ringEvents;
        this.header = header;
        this.warmDir = warmDir;
        this.warn = warn;
        if (intervalMs <= 0) {
            throw new IllegalArgumentException("drain interval must be positive: " + intervalMs);
        }
        this.intervalNanos = intervalMs * 1_000_000L;
    }

    /** Opens the process's queue. */
    @FunctionalInterface
    public interface Opener {
        QueueSink open() throws IOException;
    }

    /** Builds the header once the drainer has measured what it needs. */
    @FunctionalInterface
    public interface HeaderFactory {
        ProcessHeader create(double nominalTickHz, long probeCostTicksX1024);
    }

    /**
     * What the drainer writes just before its end record (the weaving summary); set before {@link #start}.
     * It runs on the drainer's thread at shutdown, after the last drain.
     */
    @Override
    public void beforeEnd(Supplier<WeavingSummary> summary) {
        this.weaving = summary;
    }

    /** Statistics mode instead of a trace (docs/CONFIG.md, "Statistics mode"); set before {@link #start}. */
    public void statisticsMode(StatisticsMode mode) {
        this.statisticsMode = mode;
    }

    /** Starts the drainer thread and the shutdown hook that ends it with a final drain. */
    @Override
    public void start() {
        thread = RunDrain.thread(this);
        RunDrain.start(thread, this::stop);
    }

    /**
     * Waits until the queue is open, the header written and the warm-up over (or the queue could not
     * be opened, or the warm-up failed, or the drainer stopped), at most {@code timeoutMs}; true if it
     * was over in time.
     */
    @Override
    public boolean awaitWarm(long timeoutMs) throws InterruptedException {
        return warm.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Waits until the drainer has opened the process's queue or failed to, as long as that takes (as
     * the start waited for the queue when it opened it itself); returns why it failed, or null.
     */
    @Override
    public Exception awaitOpen() throws InterruptedException {
        opened.await();
        return openFailure;
    }

    /** Ends the drainer after a last drain and the end record; waits up to 5 s. */
    public void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            Rings.wakeConsumer();
            try {
                t.join(5000);
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
            sink = opener.open();
            out = new BatchWriter(sink, clock.simulated().orElse(null), withCpu, warn);
        } catch (IOException | RuntimeException e) {
            openFailure = e;
            return;
        } finally {
            opened.countDown();
            if (openFailure != null) {
                warm.countDown();
            }
        }
        try {
            writeHeader();
            warmUp();
            warm.countDown();
            writeClockCheck();
            if (statisticsMode != null) {
                statistics = statisticsMode.start(probeCostX1024, clock.simulated().orElse(null), System.nanoTime());
            }
            while (running) {
                sawFullScratch = false;
                long wait = DURABLE_PASS_NANOS;
                if (statisticsMode != null) {
                    statisticsMode.beforePass(System.nanoTime(), storedTick);
                }
                drainOnce(false);
                if (statisticsMode != null) {
                    wait = Math.min(wait, statisticsMode.afterPass(records, System.nanoTime(), storedTick, Rings.totalLost()));
                }
                if (!sawFullScratch && !Rings.awaitFill(wait)) {
                    LockSupport.parkNanos(Math.min(intervalNanos, Math.max(1, wait)));
                }
            }
            drainOnce(true);
            if (statisticsMode != null) {
                statisticsMode.finish(records, clock.now(), Rings.totalLost());
            }
            writeProbeCostMarker();
            writeWeaving();
            writeEnd();
            // Everything is in the queue: a reader must not recover the rings' old slots again.
            Rings.removeRingFiles();
        } catch (Throwable t) {
            warn.accept("profiling stopped: " + t + "; the application runs on, events from now on are lost");
        } finally {
            warm.countDown();
            sink.close();
        }
    }

    private void writeHeader() throws InterruptedException {
        double hz = TickRate.measure(clock::now, 10);
        long costX1024 = measureProbeCost();
        header.create(hz, costX1024).encode(out.start());
        out.append(0);
        probeCostX1024 = costX1024;
    }

    /**
     * Whether the counter can be one clock domain ({@link CounterCheck}): after the warm-up, so the
     * application's start does not wait for it, and before the first pass.
     */
    private void writeClockCheck() {
        ClockCheck check = CounterCheck.run(Rings.NATIVE);
        check.encode(out.start());
        out.append(0);
        check.fault().ifPresent(f -> warn.accept(f + "; the consolidator gives this domain no bounds"));
    }

    private long measureProbeCost() {
        return ProbeCost.measure(clock, ringEvents);
    }

    /** The probe cost as an event of this thread, for traces ({@link ProbeCost#markerSlot}). */
    private void writeProbeCostMarker() {
        out.nameThread(ownThreadId, Thread.currentThread().getName());
        out.batch(ownThreadId, ProbeCost.markerSlot(clock, probeCostX1024), 1);
    }

    /**
     * Runs the probes and this drainer's whole path (ring drain, encoder, Chronicle append) until
     * the JIT has compiled them, into a scratch queue that is deleted afterwards. The path is
     * taken exactly as later, branch for branch, so that the compiled code does not meet an
     * untaken branch (and deoptimize) once the application's events come: for the warm-up the
     * writer is swapped for the scratch queue's and this thread counts as an application thread
     * (no application thread exists yet: the start returns to {@code main} only after the warm-up, though the
     * weaving may begin before it ends, on the agent's and the JVM's threads only), and
     * now and then a batch comes from a thread not seen before. Rounds stay far below the ring's
     * size, so nothing is lost. Never throws: without a warm-up the agent only starts slower.
     */
    private void warmUp() {
        if (warmDir == null) {
            return;
        }
        Path dir = warmDir.resolve("dprof-warmup-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        BatchWriter real = out;
        long self = ownThreadId;
        try {
            Files.createDirectory(dir);
            try (QueueSink scratchSink = QueueSink.open(dir)) {
                out = new BatchWriter(scratchSink, clock.simulated().orElse(null), withCpu, warn);
                ownThreadId = -1;
                warming = true;
                ProbeWarmup probes = new ProbeWarmup(Math.max(1, Math.min(8, ringEvents / (4 * ProbeWarmup.EVENTS_PER_ROUND))));
                // Statistics mode's path is warmed as well, into an aggregator thrown away afterwards.
                statistics = statisticsMode == null ? null
                        : StatisticsMode.aggregator(probeCostX1024, clock.simulated().orElse(null));
                long deadline = System.nanoTime() + WARM_BUDGET_NANOS;
                for (int pass = 0; pass < WARM_PASSES && running && System.nanoTime() - deadline < 0; pass++) {
                    probes.rounds(1 + pass % probes.maxRounds());
                    // Not drainOnce: the region table belongs in the process's queue.
                    Rings.drain(this, scratch);
                    if (pass % NEW_THREAD_EVERY == 0) {
                        // A thread seen for the first time, as the application's threads will be:
                        // the last drained slot again, under an id no thread has; and probes on a
                        // thread of their own, whose first event creates its ring.
                        out.batch(-2 - pass, scratch, 1);
                        warmupThreads[warmupThreadCount++] = probes.roundOnNewThread(pass / NEW_THREAD_EVERY);
                        if (statistics != null) {
                            statistics.flush(records, clock.now(), 0);
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            warn.accept("warm-up skipped (" + e + "); the drainer compiles while the application runs");
        } finally {
            out = real;
            ownThreadId = self;
            warming = false;
            statistics = null;
            deleteFlat(dir);
        }
    }

    /** Deletes a directory and the files in it (a queue directory has no subdirectories). */
    private static void deleteFlat(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException | RuntimeException e) {
            // A leftover scratch queue in the temporary directory harms nothing.
        }
    }

    /** Writes new regions, then every ring's pending events; {@code last} at shutdown (see {@link Rings#drainLast}). */
    private void drainOnce(boolean last) {
        writeNewRegions();
        if (last) {
            Rings.drainLast(this, scratch);
        } else {
            Rings.drain(this, scratch);
        }
        VirtualThreads.drainStarted(nameVirtualThread);
        TcpProbes.drainOpened(describeConnection);
    }

    /**
     * The regions registered since the last call, written before any batch that may use them; not
     * during the warm-up, whose writer is the scratch queue's (the table belongs in the process's).
     */
    private void writeNewRegions() {
        if (warming) {
            return;
        }
        for (RegionInfo r = regions.pollUnwritten(); r != null; r = regions.pollUnwritten()) {
            r.encode(out.start());
            out.append(0);
        }
    }

    @Override
    public void batch(long threadId, ByteBuffer slots, int count, long lostSoFar, boolean threadEnded) {
        if (count == SCRATCH_EVENTS) {
            sawFullScratch = true;
        }
        // While warming, every batch goes to the scratch queue (the drainer's own too: that is the path
        // it warms), so the agent's threads are left out only once the warm-up is over.
        if (threadId == ownThreadId || isWarmupThread(threadId) || !warming && AgentThreads.isOwnId(threadId)) {
            return;
        }
        if (count > 0) {
            // A region is registered before its first event is recorded, a virtual thread's start
            // happens before its first mount, and a TCP connection is queued before its first event:
            // these slots may hold any of them, registered since this pass began.
            writeNewRegions();
            VirtualThreads.drainStarted(nameVirtualThread);
            TcpProbes.drainOpened(describeConnection);
            if (statistics != null) {
                statistics.accept(threadId, slots, count, threadEnded);
            }
            if (statistics == null || statisticsMode.traced()) {
                out.batch(threadId, slots, count);
            }
        } else if (threadEnded && statistics != null) {
            statistics.threadEnded(threadId);
        }
        if (lostSoFar > 0 && (threadId != lastLossThread || lostSoFar != lastLoss)) {
            // After the batch: a reader of a killed process adds what the ring file says beyond it.
            out.loss(threadId, lostSoFar);
            lastLossThread = threadId;
            lastLoss = lostSoFar;
        }
    }

    private boolean isWarmupThread(long threadId) {
        for (int i = 0; i < warmupThreadCount; i++) {
            if (warmupThreads[i] == threadId) {
                return true;
            }
        }
        return false;
    }

    /** The weaving summary, if one was asked for; a failure to make it costs the record, not the end. */
    private void writeWeaving() {
        Supplier<WeavingSummary> summary = weaving;
        if (summary == null) {
            return;
        }
        WeavingSummary w;
        try {
            w = summary.get();
        } catch (RuntimeException e) {
            warn.accept("cannot say what was woven (" + e + ")");
            return;
        }
        w.encode(out.start());
        out.append(0);
    }

    private void writeEnd() {
        out.end(clock.now(), Rings.totalLost(), Probes.failures());
    }
}
