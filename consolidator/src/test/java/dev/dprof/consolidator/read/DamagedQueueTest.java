package dev.dprof.consolidator.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventCodes;
import dev.dprof.format.EventKind;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.RecordType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Queue files whose damage the files themselves say how to undo, read whole (docs/FORMAT.md, "Damaged files"). */
class DamagedQueueTest {
    static final int BATCHES = 40;
    static final int EVENTS = 100;
    static final int LOST = 17;

    @Test
    void aDamagedLengthIsRepairedFromTheDocumentsThatFollowIt(@TempDir Path dir) throws Exception {
        Path queue = dir.resolve("q");
        write(queue);
        Map<Long, List<Long>> pristine = ticks(queue);
        assertEquals(BATCHES * EVENTS, pristine.get(1L).size());

        Path cq4 = cq4(queue);
        List<long[]> batches = batchDocuments(cq4);
        long[] middle = batches.get(batches.size() / 2);
        putInt(cq4, middle[0], (int) (middle[1] & 0xC000_0000L) | 0x3FFF_FF00);

        try (ProcessQueue q = ProcessQueue.open(queue)) {
            Map<Long, List<Long>> read = TestQueue.read(q, new HashMap<>());
            assertEquals(pristine, read);
            assertTrue(q.problems().stream().anyMatch(p -> p.contains(cq4.toString()) && p.contains("offset " + middle[0])
                    && p.contains("chain from offset")), q.problems()::toString);
            assertEquals(LOST, q.loss().events());
            assertTrue(q.loss().exact());
        }
    }

    @Test
    void aQueueChronicleCannotOpenIsCountedByItsEndRecord(@TempDir Path dir) throws Exception {
        Path queue = dir.resolve("q");
        write(queue);
        Path cq4 = cq4(queue);
        byte[] bytes = Files.readAllBytes(cq4);
        Random random = new Random(19);
        for (int i = 0; i < 1000; i++) {
            bytes[random.nextInt(200)] ^= (byte) (1 << random.nextInt(8));
        }
        Files.write(cq4, bytes);
        assertThrows(ReadException.class, () -> ProcessQueue.open(queue).close());

        ProcessCensus.Count count = ProcessCensus.of(queue);
        assertEquals(BATCHES * EVENTS + LOST, count.events());
        assertTrue(count.exact());
        assertEquals("its end record", count.source());
    }

    @Test
    void aQueueCutToItsHeaderIsCountedAsUnknown(@TempDir Path dir) throws Exception {
        Path queue = dir.resolve("q");
        write(queue);
        Path cq4 = cq4(queue);
        try (FileChannel f = FileChannel.open(cq4, StandardOpenOption.WRITE)) {
            f.truncate(100);
        }
        ProcessCensus.Count count = ProcessCensus.of(queue);
        assertFalse(count.exact());
        assertEquals(0, count.events());
        assertTrue(count.leftOut().contains("an unknown number of events"), count::leftOut);
    }

    @Test
    void aCutQueueOfAKilledProcessIsCountedByItsRings(@TempDir Path dir) throws Exception {
        Path queue = dir.resolve("q");
        List<long[]> recorded = new ArrayList<>();
        long tick = 1_000;
        for (int i = 0; i < 506; i++) {
            tick += 3 + i % 7;
            recorded.add(new long[] {tick, i == 0 ? EventCodes.THREAD_START : EventCodes.header(EventCodes.ENTER, 3)});
        }
        try (TestQueue q = new TestQueue(queue)) {
            q.region(3, "step", "plain");
            q.thread(1, "main");
            for (int b = 0; b < 5; b++) {
                q.batch(1, recorded.subList(100 * b, 100 * (b + 1)));
            }
        }
        // killed: 500 events written and handed back, 6 still pending in the ring
        RingRecoveryTest.ringFile(queue, 1, 1, "main", recorded, 500, 0);
        Path cq4 = cq4(queue);
        long[] fourth = batchDocuments(cq4).get(3);
        try (FileChannel f = FileChannel.open(cq4, StandardOpenOption.WRITE)) {
            f.truncate(fourth[0]);
        }

        try (ProcessQueue q = ProcessQueue.open(queue)) {
            Map<Long, List<Long>> read = TestQueue.read(q, new HashMap<>());
            assertEquals(306, read.get(1L).size());
            ProcessLoss.Counted loss = q.loss();
            assertEquals(200, loss.events(), loss::toString);
            assertTrue(loss.exact(), loss::toString);
            assertTrue(loss.reason().contains("cut off with the queue file: 200"), loss::toString);
        }
    }

    private static void write(Path queue) {
        try (TestQueue q = new TestQueue(queue)) {
            q.thread(1, "main");
            long tick = 0;
            for (int b = 0; b < BATCHES; b++) {
                List<long[]> events = new ArrayList<>();
                for (int i = 0; i < EVENTS; i++) {
                    events.add(new long[] {tick += 7 + (i % 5), EventKind.PROGRESS.code, i});
                }
                q.batch(1, events);
            }
            q.end(new ProcessEnd(tick, BATCHES * EVENTS, LOST, "per-thread buffers full: " + LOST));
        }
    }

    private static Map<Long, List<Long>> ticks(Path queue) throws ReadException {
        try (ProcessQueue q = ProcessQueue.open(queue)) {
            return TestQueue.read(q, new HashMap<>());
        }
    }

    static Path cq4(Path queue) throws IOException {
        try (Stream<Path> files = Files.list(queue)) {
            return files.filter(f -> f.toString().endsWith(QueueFiles.SUFFIX)).findFirst().orElseThrow();
        }
    }

    /** Each batch document's {offset, header}, walking the headers as Chronicle lays them out. */
    static List<long[]> batchDocuments(Path cq4) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(cq4)).order(ByteOrder.LITTLE_ENDIAN);
        List<long[]> out = new ArrayList<>();
        for (int at = 0; at + 4 <= b.limit(); ) {
            int header = b.getInt(at);
            if (header == 0) {
                break;
            }
            int size = header & QueueFiles.LENGTH_MASK;
            if ((header & QueueFiles.META_DATA) == 0 && b.get(at + 4) == RecordType.BATCH) {
                out.add(new long[] {at, header & 0xFFFF_FFFFL});
            }
            at = (at + 4 + size + 3) & ~3;
        }
        return out;
    }

    static void putInt(Path file, long at, int value) throws IOException {
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE)) {
            out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), at);
        }
    }
}
