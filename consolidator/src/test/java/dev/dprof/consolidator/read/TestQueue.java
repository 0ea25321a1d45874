package dev.dprof.consolidator.read;

import dev.dprof.clock.ClockSource;
import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RecordType;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.ThreadInfo;
import dev.dprof.format.WeavingSummary;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;

/** Writes a process queue the way the drainer does, for the reader's tests. */
final class TestQueue implements AutoCloseable {
    /** The clock domain of every test queue. */
    static final String DOMAIN = "tsc@test";
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final ByteSink record = new ByteSink(1 << 12);

    TestQueue(Path dir) {
        this(dir, "17");
    }

    /** A queue whose header says it was written by a JVM of version {@code jvm}. */
    TestQueue(Path dir, String jvm) {
        this(dir, jvm, true);
    }

    /** @param header whether to start the queue with a process header (else append to one) */
    TestQueue(Path dir, String jvm, boolean header) {
        this(dir, jvm, header, 1);
    }

    /** The queue of process {@code pid} of host {@code host}. */
    TestQueue(Path dir, String jvm, boolean header, long pid) {
        queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(LargeRollCycles.LARGE_DAILY).build();
        appender = queue.createAppender();
        if (!header) {
            return;
        }
        new ProcessHeader(RecordType.FORMAT_VERSION, "host", pid, 0, 0, DOMAIN, ClockSource.RDTSC, "test",
                1e9, Optional.empty(), 1024, jvm, "test", "test.yaml", 5).encode(start());
        append();
    }

    void region(RegionInfo region) {
        region.encode(start());
        append();
    }

    /** A YAML region of this id, name and kind, as the drainer writes it before any event that uses it. */
    void region(int id, String name, String kind) {
        region(new RegionInfo(id, name, kind, "yaml", "test.yaml:" + id, java.util.OptionalLong.empty()));
    }

    void weaving(WeavingSummary summary) {
        summary.encode(start());
        append();
    }

    void thread(long tid, String name) {
        new ThreadInfo(tid, name).encode(start());
        append();
    }

    /** A batch of {@code tid}: each event {tick, header[, a[, b]]}. */
    void batch(long tid, List<long[]> events) {
        EventBatchEncoder.encode(start(), tid, slots(events), events.size(), null, false);
        append();
    }

    void end() {
        end(0, "");
    }

    void end(long lost, String reason) {
        end(new ProcessEnd(0, 0, lost, reason));
    }

    void end(ProcessEnd end) {
        end.encode(start());
        append();
    }

    /** A loss record: thread {@code tid}'s ring had dropped {@code lostSoFar} events. */
    void loss(long tid, long lostSoFar) {
        dev.dprof.format.ThreadLoss.encode(start(), tid, lostSoFar);
        append();
    }

    /** Slots in the rings' layout: each event {tick, header[, a[, b]]}. */
    static ByteBuffer slots(List<long[]> events) {
        ByteBuffer b = ByteBuffer.allocate(events.size() * EventBatchEncoder.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < events.size(); i++) {
            long[] e = events.get(i);
            b.putLong(i * EventBatchEncoder.SLOT_BYTES, e[0]);
            b.putInt(i * EventBatchEncoder.SLOT_BYTES + 8, (int) e[1]);
            if (e.length > 2) {
                b.putLong(i * EventBatchEncoder.SLOT_BYTES + 16, e[2]);
            }
            if (e.length > 3) {
                b.putLong(i * EventBatchEncoder.SLOT_BYTES + 24, e[3]);
            }
        }
        return b;
    }

    private ByteSink start() {
        record.clear();
        return record;
    }

    private void append() {
        try (DocumentContext dc = appender.writingDocument()) {
            dc.wire().bytes().write(record.array(), 0, record.size());
        }
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
    }

    /** Every thread's ticks in the order {@link ProcessQueue#read} gives them; thread names go to {@code names}. */
    static Map<Long, List<Long>> read(ProcessQueue q, Map<Long, String> names) {
        Map<Long, List<Long>> ticks = new LinkedHashMap<>();
        q.read(new RecordVisitor() {
            @Override
            public void thread(ThreadInfo thread) {
                names.put(thread.threadId(), thread.name());
            }

            @Override
            public void batch(EventBatchReader events) throws FormatException {
                List<Long> list = ticks.computeIfAbsent(events.threadId(), k -> new ArrayList<>());
                while (events.next()) {
                    list.add(events.tick);
                }
            }
        });
        return ticks;
    }

    /** One thread's ticks as its {@link BatchCursor} gives them. */
    static List<Long> cursorTicks(ProcessQueue q, long thread) throws FormatException {
        List<Long> ticks = new ArrayList<>();
        try (BatchCursor c = q.batches(thread)) {
            while (c.next()) {
                while (c.events().next()) {
                    ticks.add(c.events().tick);
                }
            }
        }
        return ticks;
    }
}
