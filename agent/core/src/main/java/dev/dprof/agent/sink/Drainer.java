package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.RingVisitor;
import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.agent.instrument.RegionTable;
import dev.dprof.clock.DomainClock;
import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventCodes;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.ThreadInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Moves events from the per-thread rings to the process's queue, off the application's threads:
 * every {@code drainIntervalMs} (at once again while rings were found full), each thread's
 * pending events become one compact batch document. So after a {@code kill -9}, everything
 * older than one interval is on disk.
 *
 * <p>Before the first batch it writes the process header, with the nominal tick rate and the
 * probe cost measured here, on this thread: the measuring probes go to this thread's own ring,
 * whose events are never written.
 *
 * <h2>Implementation notes</h2>
 * One instance, one thread: it is the single consumer the rings require. Encoding reuses one
 * {@link ByteSink} and one direct scratch buffer, so draining allocates only per new thread.
 */
public final class Drainer implements RingVisitor, Runnable {
    private static final int SCRATCH_EVENTS = 8192;
    private static final int COST_ROUNDS = 10;

    private final QueueSink sink;
    private final RegionTable regions;
    private final DomainClock clock;
    private final boolean withCpu;
    private final int intervalMs;
    private final int ringEvents;
    private final HeaderFactory header;
    private final Consumer<String> warn;
    private final ByteSink record = new ByteSink(1 << 16);
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_EVENTS * Rings.SLOT_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    private final Set<Long> namedThreads = new HashSet<>();
    private volatile boolean running = true;
    private volatile Thread thread;
    private long ownThreadId = -1;
    private long written;
    private long refused;
    private boolean sawFullScratch;

    public Drainer(QueueSink sink, RegionTable regions, DomainClock clock, boolean withCpu, int intervalMs,
                   int ringEvents, HeaderFactory header, Consumer<String> warn) {
        this.sink = sink;
        this.regions = regions;
        this.clock = clock;
        this.withCpu = withCpu;
        this.intervalMs = intervalMs;
        this.ringEvents = ringEvents;
        this.header = header;
        this.warn = warn;
    }

    /** Builds the header once the drainer has measured what it needs. */
    @FunctionalInterface
    public interface HeaderFactory {
        ProcessHeader create(double nominalTickHz, long probeCostTicksX1024);
    }

    /** Starts the drainer thread and the shutdown hook that ends it with a final drain. */
    public void start() {
        Thread t = new Thread(this, "dprof-drainer");
        t.setDaemon(true);
        thread = t;
        t.start();
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "dprof-shutdown"));
    }

    /** Ends the drainer after a last drain and the end record; waits up to 5 s. */
    public void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
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
        try {
            writeHeader();
            while (running) {
                sawFullScratch = false;
                drainOnce(false);
                if (!sawFullScratch) {
                    LockSupport.parkNanos(intervalMs * 1_000_000L);
                }
            }
            drainOnce(true);
            writeEnd();
        } catch (Throwable t) {
            warn.accept("profiling stopped: " + t + "; the application runs on, events from now on are lost");
        } finally {
            sink.close();
        }
    }

    private void writeHeader() throws InterruptedException {
        double hz = TickRate.measure(clock::now, 10);
        long costX1024 = measureProbeCost();
        record.clear();
        header.create(hz, costX1024).encode(record);
        sink.append(record);
        writeProbeCostMarker(costX1024);
    }

    /**
     * The cost of one probe in ticks ×1024: the cheapest of a few rounds of enter/exit pairs on this
     * thread, so JIT warm-up does not inflate it.
     */
    private long measureProbeCost() {
        int pairs = Math.max(16, Math.min(1500, ringEvents / (4 * COST_ROUNDS)));
        long best = Long.MAX_VALUE;
        for (int round = 0; round < COST_ROUNDS; round++) {
            long t0 = clock.now();
            for (int i = 0; i < pairs; i++) {
                Probes.enter(0);
                Probes.exit(0, false);
            }
            long t1 = clock.now();
            best = Math.min(best, t1 - t0);
        }
        return best * 1024 / (2L * pairs);
    }

    private void writeProbeCostMarker(long costX1024) {
        ByteBuffer slot = ByteBuffer.allocateDirect(Rings.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        slot.putLong(0, clock.raw());
        slot.putInt(8, EventCodes.PROBE_COST);
        slot.putLong(16, costX1024);
        slot.putLong(24, 2L * COST_ROUNDS);
        // Named first: naming reuses the one record buffer, so it must not come between encode and append.
        nameThread(ownThreadId, Thread.currentThread().getName());
        record.clear();
        EventBatchEncoder.encode(record, ownThreadId, slot, 1, clock.simulated().orElse(null), withCpu);
        append(record, 1);
    }

    /** Writes new regions, then every ring's pending events; {@code last} at shutdown (see {@link Rings#drainLast}). */
    private void drainOnce(boolean last) {
        for (RegionInfo r = regions.pollUnwritten(); r != null; r = regions.pollUnwritten()) {
            record.clear();
            r.encode(record);
            append(record, 0);
        }
        if (last) {
            Rings.drainLast(this, scratch);
        } else {
            Rings.drain(this, scratch);
        }
    }

    @Override
    public void batch(long threadId, ByteBuffer slots, int count, long lostSoFar, boolean threadEnded) {
        if (count == 0 || threadId == ownThreadId) {
            return;
        }
        if (count == SCRATCH_EVENTS) {
            sawFullScratch = true;
        }
        if (!namedThreads.contains(threadId)) {
            String name = Rings.threadName(threadId);
            nameThread(threadId, name == null ? "thread-" + threadId : name);
        }
        record.clear();
        EventBatchEncoder.encode(record, threadId, slots, count, clock.simulated().orElse(null), withCpu);
        append(record, count);
    }

    private void nameThread(long threadId, String name) {
        namedThreads.add(threadId);
        record.clear();
        new ThreadInfo(threadId, name).encode(record);
        append(record, 0);
    }

    private void append(ByteSink bytes, int events) {
        if (sink.append(bytes)) {
            written += events;
        } else {
            if (refused == 0) {
                warn.accept(sink.refusal() + "; events from now on are counted as lost");
            }
            refused += events;
        }
    }

    private void writeEnd() {
        long ringLost = Rings.totalLost();
        long failed = Probes.failures();
        StringBuilder reason = new StringBuilder();
        if (ringLost > 0) {
            reason.append("per-thread buffers full: ").append(ringLost);
        }
        if (refused > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append(sink.refusal()).append(": ").append(refused);
        }
        if (failed > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append("failed probes: ").append(failed);
        }
        record.clear();
        new ProcessEnd(clock.now(), written, ringLost + refused + failed, reason.toString()).encode(record);
        sink.forceAppend(record);
    }
}
