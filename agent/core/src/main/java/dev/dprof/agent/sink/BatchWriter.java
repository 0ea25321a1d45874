package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.agent.bootstrap.TcpProbes;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.ThreadInfo;
import dev.dprof.format.ThreadLoss;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * Turns drained slots into documents of one queue: names each thread before its first batch,
 * encodes the batch, appends it, and counts what was written and what the sink refused. The
 * drainer has one for the process's queue, its warm-up one for a scratch queue, so the warm-up
 * runs exactly the code the drainer runs later.
 *
 * <h2>Implementation notes</h2>
 * One thread uses an instance. Encoding reuses one {@link ByteSink}, so writing allocates only
 * per new thread.
 */
final class BatchWriter {
    private final QueueSink sink;
    private final SimulatedClock simulated;
    private final boolean withCpu;
    private final Consumer<String> warn;
    /** A thread's name by its id: the rings' in the host, the ring files' in a drainer process. */
    private final LongFunction<String> names;
    private final ByteSink record = new ByteSink(1 << 16);
    private final Set<Long> namedThreads = new HashSet<>();
    private long written;
    private long refused;

    BatchWriter(QueueSink sink, SimulatedClock simulated, boolean withCpu, Consumer<String> warn) {
        this(sink, simulated, withCpu, warn, Rings::threadName);
    }

    BatchWriter(QueueSink sink, SimulatedClock simulated, boolean withCpu, Consumer<String> warn,
                LongFunction<String> names) {
        this.sink = sink;
        this.simulated = simulated;
        this.withCpu = withCpu;
        this.warn = warn;
        this.names = names;
    }

    /** Appends one batch of {@code count} slots of thread {@code threadId}, naming the thread first if new. */
    void batch(long threadId, ByteBuffer slots, int count) {
        if (!namedThreads.contains(threadId)) {
            nameThread(threadId, names.apply(threadId));
        }
        EventBatchEncoder.encode(start(), threadId, slots, count, simulated, withCpu);
        append(count);
    }

    /** Says that thread {@code threadId}'s ring has dropped {@code lostSoFar} events since it was made. */
    void loss(long threadId, long lostSoFar) {
        ThreadLoss.encode(start(), threadId, lostSoFar);
        append(0);
    }

    /**
     * Describes a TCP connection (its endpoints, and the network namespace {@code scope} the process
     * lives in); batches holding its events must come after this.
     */
    void connection(TcpProbes.Connection c, String scope) {
        TcpConnection.encode(start(), c.number, c.localAddress, c.localPort, c.remoteAddress, c.remotePort, scope);
        append(0);
    }

    /** Names a thread; its batches must come after this. */
    void nameThread(long threadId, String name) {
        namedThreads.add(threadId);
        writeName(threadId, name);
    }

    /**
     * Names a virtual thread. Its events are in its carriers' batches, never in batches of its own
     * here, so it is not remembered: nothing stays behind per virtual thread.
     */
    void nameVirtualThread(long threadId, String name) {
        writeName(threadId, name);
    }

    private void writeName(long threadId, String name) {
        new ThreadInfo(threadId, name == null ? "thread-" + threadId : name).encode(start());
        append(0);
    }

    /** The emptied buffer of the next record; {@link #append} or {@link #appendLast} writes it. */
    ByteSink start() {
        record.clear();
        return record;
    }

    /**
     * Appends a document made elsewhere (the host's records, in a drainer process), which carries
     * {@code events} events (a batch's; 0 for metadata).
     */
    void document(ByteBuffer bytes, int events) {
        ByteSink r = start();
        int n = bytes.remaining();
        byte[] a = r.reserve(n);
        bytes.duplicate().get(a, 0, n);
        r.skip(n);
        append(events);
    }

    /** Appends the closing record even if the sink refuses others (see {@link QueueSink#forceAppend}). */
    void appendLast() {
        sink.forceAppend(record);
    }

    /**
     * Appends the end record: what was written, and what was lost by reason (full rings, what the sink
     * refused, failed probes), whichever drainer writes it.
     */
    void end(long endTick, long ringLost, long failedProbes) {
        StringBuilder reason = new StringBuilder();
        if (ringLost > 0) {
            reason.append("per-thread buffers full: ").append(ringLost);
        }
        if (refused > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append(refusal()).append(": ").append(refused);
        }
        if (failedProbes > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append("failed probes: ").append(failedProbes);
        }
        new ProcessEnd(endTick, written, ringLost + refused + failedProbes, reason.toString()).encode(start());
        appendLast();
    }

    /** Appends the record built since {@link #start}, which carries {@code events} events (0 for metadata). */
    void append(int events) {
        if (sink.append(record)) {
            written += events;
        } else {
            if (refused == 0) {
                warn.accept(sink.refusal() + "; events from now on are counted as lost");
            }
            refused += events;
        }
    }

    long written() {
        return written;
    }

    long refused() {
        return refused;
    }

    String refusal() {
        return sink.refusal();
    }
}
