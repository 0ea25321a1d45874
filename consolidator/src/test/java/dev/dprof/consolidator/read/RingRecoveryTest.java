package dev.dprof.consolidator.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventCodes;
import dev.dprof.format.FormatException;
import dev.dprof.format.RingFile;
import dev.dprof.format.ThreadInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery from ring files: every event a thread recorded is read exactly once — the ones in the
 * queue from the queue, the rest from the file, whichever of the drainer's steps (append, hand
 * back) the kill came between — and nothing is recovered for a process that ended.
 */
class RingRecoveryTest {
    static final int RING_EVENTS = 8;
    private static final int REGION = 3;

    /**
     * Random histories of one thread: {@code recorded} events, the first {@code written} of them in
     * the queue (in batches), the first {@code tail ≤ written} handed back, and a ring that wraps;
     * the recovered stream is always exactly the recorded one.
     */
    @Test
    void everyRecordedEventIsReadOnceWhateverTheKillInterrupted(@TempDir Path tmp) throws Exception {
        Random random = new Random(7);
        for (int run = 0; run < 200; run++) {
            int recorded = 1 + random.nextInt(40);
            int tail = Math.max(0, recorded - RING_EVENTS + random.nextInt(RING_EVENTS + 1));
            tail = Math.min(tail, recorded);
            int written = tail + random.nextInt(recorded - tail + 1);
            Path dir = tmp.resolve("run-" + run);
            List<long[]> events = events(recorded, random);
            try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
                w.thread(20, "worker");
                for (int from = 0; from < written; ) {
                    int n = Math.min(written - from, 1 + random.nextInt(5));
                    w.batch(20, events.subList(from, from + n));
                    from += n;
                }
            }
            ringFile(dir, 1, 20, "worker", events, tail, 0);
            try (ProcessQueue q = ProcessQueue.open(dir)) {
                assertEquals(List.of(), q.problems());
                assertEquals(ticks(events), read(q).get(20L), "run " + run + ": recorded " + recorded
                        + ", written " + written + ", tail " + tail);
                assertEquals(ticks(events), TestQueue.cursorTicks(q, 20), "the per-thread cursor reads the same");
                assertEquals(recorded > written, q.recovered().isPresent());
            }
        }
    }

    @Test
    void aThreadOnlyInItsRingIsNamedFromTheFileAndAgentRingsAreSkipped(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
        }
        List<long[]> events = events(3, new Random(1));
        ringFile(dir, 1, 21, "late-thread", events, 0, 0);
        ringFile(dir, 2, 15, "dprof-drainer", events, 0, RingFile.FLAG_PRIVATE);
        ringFile(dir, 3, -1, "", events, 0, 0);
        Files.createFile(dir.resolve(RingFile.DIRECTORY).resolve("4" + RingFile.SUFFIX));
        Files.write(dir.resolve(RingFile.DIRECTORY).resolve("5" + RingFile.SUFFIX), new byte[RingFile.HEADER_BYTES]);
        Files.write(dir.resolve(RingFile.DIRECTORY).resolve("6" + RingFile.SUFFIX), new byte[100]);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            Map<Long, String> names = new LinkedHashMap<>();
            Map<Long, List<Long>> ticks = TestQueue.read(q, names);
            assertEquals(Map.of(21L, ticks(events)), ticks);
            assertEquals("late-thread", names.get(21L));
            assertEquals(Optional.of("3 events of 1 thread recovered from its ring files"), q.recovered());
            assertEquals(1, q.problems().size(), q.problems()::toString);
            assertTrue(q.problems().get(0).contains("6.ring") && q.problems().get(0).contains("shorter than a ring"),
                    q.problems()::toString);
        }
    }

    @Test
    void nothingIsRecoveredAfterTheEndRecord(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        List<long[]> events = events(4, new Random(2));
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
            w.batch(20, events.subList(0, 2));
            w.end();
        }
        ringFile(dir, 1, 20, "worker", events, 0, 0);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            assertEquals(Map.of(20L, ticks(events.subList(0, 2))), read(q));
            assertEquals(Optional.empty(), q.recovered());
        }
    }

    /**
     * A process still running: its drainer appends what the ring files also hold while the queue is
     * being read. The queue is read up to where recovery counted, so nothing is read twice.
     */
    @Test
    void aQueueThatGrowsWhileItIsReadYieldsEveryEventOnce(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        List<long[]> events = events(6, new Random(3));
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
            w.batch(20, events.subList(0, 2));
        }
        ringFile(dir, 1, 20, "worker", events, 2, 0);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            try (TestQueue drainer = new TestQueue(dir, "17", false)) {
                drainer.batch(20, events.subList(2, 5));
            }
            assertEquals(Map.of(20L, ticks(events)), read(q));
            assertEquals(ticks(events), TestQueue.cursorTicks(q, 20));
        }
    }

    /**
     * A killed process's loss: per thread the larger of its last loss record and its ring file's own
     * {@code lost} (both cumulative), a thread known only from its ring included, plus what a ring
     * handed back that the queue does not hold; the figure is exact when every ring file reads.
     */
    @Test
    void aKilledProcessCountsItsLossFromLossRecordsAndTheRingsOwnCounters(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        List<long[]> events = events(6, new Random(4));
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
            w.batch(20, events.subList(0, 2));
            w.loss(20, 5);
            w.thread(22, "refused");
            w.batch(22, events.subList(0, 1));
            w.thread(23, "ended");
            w.loss(23, 40);
        }
        ringFile(dir, 1, 20, "worker", events, 2, 0, 9);
        ringFile(dir, 2, 21, "late", events, 0, 0, 3);
        ringFile(dir, 3, 22, "refused", events, 4, 0, 0);
        ringFile(dir, 4, 15, "dprof-drainer", events, 6, RingFile.FLAG_PRIVATE, 1000);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            read(q);
            ProcessLoss.Counted loss = q.loss();
            assertEquals(9 + 3 + 40 + (4 - 1), loss.events(), loss::toString);
            assertTrue(loss.exact());
            assertEquals("per-thread buffers full: 52; refused by the queue: 3", loss.reason());
            assertEquals("55 lost", loss.phrase());
        }
    }

    /** Only the end record counts for a process that ended: it has every ring's loss and the rest. */
    @Test
    void anEndedProcessCountsWhatItsEndRecordSays(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
            w.loss(20, 5);
            w.end(17, "per-thread buffers full: 12; failed probes: 5");
        }
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            read(q);
            assertEquals(new ProcessLoss.Counted(17, true, "per-thread buffers full: 12; failed probes: 5", List.of(), 0),
                    q.loss());
        }
    }

    /** A ring file of random bytes: named, with the most events it could hold, and the count becomes a lower bound. */
    @Test
    void aGarbageRingFileIsNamedAndMakesTheCountALowerBound(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        List<long[]> events = events(3, new Random(5));
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
        }
        ringFile(dir, 1, 20, "worker", events, 0, 0, 2);
        byte[] garbage = new byte[RingFile.HEADER_BYTES + RING_EVENTS * EventBatchEncoder.SLOT_BYTES];
        new Random(6).nextBytes(garbage);
        Path bad = dir.resolve(RingFile.DIRECTORY).resolve("2" + RingFile.SUFFIX);
        Files.write(bad, garbage);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            assertEquals(Map.of(20L, ticks(events)), read(q), "the intact ring is still recovered");
            ProcessLoss.Counted loss = q.loss();
            assertEquals(2, loss.events());
            assertFalse(loss.exact());
            assertEquals("at least 2 lost", loss.phrase());
            assertEquals(1, q.problems().size(), q.problems()::toString);
            String problem = q.problems().get(0);
            assertTrue(problem.startsWith(bad + ": not a dprof ring file") && problem.contains("at most " + RING_EVENTS)
                    && problem.contains("uncounted"), problem);
            assertEquals(q.problems(), loss.damaged());
        }
    }

    /** {@code rings/} replaced by a file: named, and the loss is a lower bound, not "0 lost". */
    @Test
    void aRingDirectoryThatIsAFileIsNamed(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        List<long[]> events = events(3, new Random(7));
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
            w.batch(20, events);
        }
        Files.write(dir.resolve(RingFile.DIRECTORY), new byte[] {1, 2, 3});
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            assertEquals(Map.of(20L, ticks(events)), read(q));
            assertEquals(List.of(dir.resolve(RingFile.DIRECTORY) + ": not a directory; the events its ring files held"
                    + " are lost, uncounted"), q.problems());
            assertEquals("at least 0 lost", q.loss().phrase());
        }
    }

    /**
     * Slots a probe cannot have written, though their kind is known and their tick in order: a
     * kind its region's kind never records, a region id outside the table, a process event, a
     * virtual thread's mount and a second THREAD_START in a JVM without virtual threads. Each is
     * left out, counted as lost, and the problem line names the file and the reasons.
     */
    @Test
    void slotsNoProbeCanHaveWrittenAreLeftOutAndCounted(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        try (TestQueue w = new TestQueue(dir)) {
            w.region(REGION, "step", "plain");
            w.thread(20, "worker");
        }
        int enter = EventCodes.header(EventCodes.ENTER, REGION);
        List<long[]> events = List.of(new long[] {10, EventCodes.THREAD_START}, new long[] {11, enter},
                new long[] {12, EventCodes.header(EventCodes.SEND, REGION), 5}, new long[] {13, EventCodes.header(EventCodes.ENTER, 9)},
                new long[] {14, EventCodes.PROCESS_END}, new long[] {15, EventCodes.VT_MOUNT, 7},
                new long[] {16, EventCodes.THREAD_START}, new long[] {17, EventCodes.header(EventCodes.EXIT, REGION)});
        ringFile(dir, 1, 20, "worker", events, 0, 0);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            assertEquals(Map.of(20L, List.of(10L, 11L, 17L)), read(q));
            ProcessLoss.Counted loss = q.loss();
            assertEquals(5, loss.events(), loss::toString);
            assertTrue(loss.exact());
            assertEquals("corrupt ring slots: 5", loss.reason());
            Path file = dir.resolve(RingFile.DIRECTORY).resolve("1" + RingFile.SUFFIX);
            assertEquals(List.of(file + ": 5 of its 8 pending slots are corrupt (1 a region id its process's table does"
                    + " not hold, 1 a kind its region's kind never records, 3 a kind no probe records at that place of a"
                    + " ring) and left out, counted as lost"), q.problems());
        }
    }

    /** THREAD_START, then ENTER events of increasing ticks with random payloads. */
    private static List<long[]> events(int n, Random random) {
        List<long[]> events = new ArrayList<>();
        long tick = 1_000_000;
        for (int i = 0; i < n; i++) {
            tick += 1 + random.nextInt(1000);
            int header = i == 0 ? EventCodes.THREAD_START : EventCodes.header(EventCodes.ENTER, REGION);
            events.add(new long[] {tick, header});
        }
        return events;
    }

    private static List<Long> ticks(List<long[]> events) {
        return events.stream().map(e -> e[0]).toList();
    }

    /** A ring file as the agent's C leaves it: {@code events} recorded, the first {@code tail} handed back. */
    static void ringFile(Path dir, int seq, long tid, String name, List<long[]> events, int tail, int flags)
            throws IOException {
        ringFile(dir, seq, tid, name, events, tail, flags, 0);
    }

    /** The same, with the ring's own count of events it dropped. */
    static void ringFile(Path dir, int seq, long tid, String name, List<long[]> events, int tail, int flags, long lost)
            throws IOException {
        ringFile(dir, seq, tid, name, events, tail, flags, lost, RING_EVENTS);
    }

    /** The same, in a ring of {@code size} slots (a power of two). */
    static void ringFile(Path dir, int seq, long tid, String name, List<long[]> events, int tail, int flags, long lost,
                         int size) throws IOException {
        ByteBuffer f = ByteBuffer.allocate(RingFile.HEADER_BYTES + size * EventBatchEncoder.SLOT_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN);
        f.putLong(RingFile.HEAD_AT, events.size());
        f.putLong(RingFile.TAIL_AT, tail);
        f.putLong(RingFile.LOST_AT, lost);
        f.putLong(RingFile.MAGIC_AT, RingFile.MAGIC);
        f.putInt(RingFile.VERSION_AT, RingFile.VERSION);
        f.putInt(RingFile.SLOT_BYTES_AT, EventBatchEncoder.SLOT_BYTES);
        f.putLong(RingFile.EVENTS_AT, size);
        f.putLong(RingFile.THREAD_ID_AT, tid);
        f.putInt(RingFile.FLAGS_AT, flags);
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        f.putInt(RingFile.NAME_LENGTH_AT, n.length);
        f.put(RingFile.NAME_AT, n);
        ByteBuffer s = TestQueue.slots(events);
        // The slots of the ring's last size events, each at its index modulo the size.
        for (int i = Math.max(0, events.size() - size); i < events.size(); i++) {
            f.put(RingFile.HEADER_BYTES + (i % size) * EventBatchEncoder.SLOT_BYTES,
                    s, i * EventBatchEncoder.SLOT_BYTES, EventBatchEncoder.SLOT_BYTES);
        }
        Path rings = Files.createDirectories(dir.resolve(RingFile.DIRECTORY));
        Files.write(rings.resolve(seq + RingFile.SUFFIX), f.array());
    }

    private static Map<Long, List<Long>> read(ProcessQueue q) {
        return TestQueue.read(q, new LinkedHashMap<>());
    }
}
