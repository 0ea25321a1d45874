package dev.dprof.consolidator.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.core.values.LongValue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.impl.single.TableStoreWriteLock;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A queue whose Chronicle locks are held by a process that died holding them (a writer killed
 * mid-append): reading must not wait for them ("no wait longer than 1 s on a lock held by
 * no one alive"). The lock is forged as Chronicle stores it: a long in {@code metadata.cq4t}'s table
 * store under {@code chronicle.write.lock} and {@code chronicle.append.lock}, holding the holder's
 * process id ({@code AbstractTSQueueLock}), here the id of a process that has exited; the document
 * it was appending is left "not complete". A reader opens the queue read-only and takes no lock
 * (a repaired copy gets a new {@code metadata.cq4t}, without the dead holder), so this holds by
 * construction; the test keeps it so.
 */
class DeadLockHolderTest {
    @Test
    void aLockHeldByADeadProcessDoesNotStallTheReader(@TempDir Path dir) throws Exception {
        Path queue = dir.resolve("q");
        try (TestQueue q = new TestQueue(queue)) {
            q.thread(1, "main");
            List<long[]> events = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                events.add(new long[] {10L * i, EventKind.PROGRESS.code, i});
            }
            q.batch(1, events);
        }
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(10, TimeUnit.SECONDS));
        long deadPid = gone.pid();
        assertFalse(ProcessHandle.of(deadPid).map(ProcessHandle::isAlive).orElse(false));
        try (SingleChronicleQueue writer = SingleChronicleQueueBuilder.binary(queue)
                .rollCycle(LargeRollCycles.LARGE_DAILY).build()) {
            for (String key : List.of("chronicle.write.lock", TableStoreWriteLock.APPEND_LOCK_KEY)) {
                LongValue lock = writer.metaStore().acquireValueFor(key);
                lock.setVolatileValue(deadPid);
                assertEquals(deadPid, lock.getVolatileValue());
            }
        }
        try (SingleChronicleQueue check = SingleChronicleQueueBuilder.binary(queue).readOnly(true)
                .rollCycle(LargeRollCycles.LARGE_DAILY).build()) {
            assertEquals(deadPid, check.tableStoreGet("chronicle.write.lock"), "the forged lock outlives its writer");
        }

        // and the document it was appending when it died: a header "not complete", its bytes never written
        halfWrittenLastDocument(DamagedQueueTest.cq4(queue));

        long start = System.nanoTime();
        Map<Long, List<Long>> read;
        try (ProcessQueue q = ProcessQueue.open(queue)) {
            read = TestQueue.read(q, new HashMap<>());
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(100, read.get(1L).size());
        // Not a performance figure: Chronicle's own wait is 10 s; the reader's bound is 1 s
        // (ProcessQueue.LOCK_TIMEOUT_MS), with room for a loaded host's open and read.
        assertTrue(ProcessQueue.LOCK_TIMEOUT_MS <= 1000);
        assertTrue(tookMs < 5000, "reading took " + tookMs + " ms with the locks of a dead process");
    }

    /** Puts a "not complete" header of 64 bytes where the queue file's written part ends. */
    private static void halfWrittenLastDocument(Path cq4) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(cq4)).order(ByteOrder.LITTLE_ENDIAN);
        int at = 0;
        while (b.getInt(at) != 0) {
            at = (at + 4 + (b.getInt(at) & QueueFiles.LENGTH_MASK) + 3) & ~3;
        }
        DamagedQueueTest.putInt(cq4, at, QueueFiles.NOT_COMPLETE | 64);
    }
}
