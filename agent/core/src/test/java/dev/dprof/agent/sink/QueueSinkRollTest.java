package dev.dprof.agent.sink;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.ByteSink;
import java.io.RandomAccessFile;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.core.time.SetTimeProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The day's roll creates a cycle file whose first pages Chronicle touches in the append that rolls:
 * that append is checked against the reserve as the first one is, not waved through on the old
 * file's allocated pages.
 */
class QueueSinkRollTest {
    @Test
    void theAppendThatRollsToANewDayIsCheckedAgainstTheReserve(@TempDir Path tmp) throws Exception {
        FileStore store = Files.getFileStore(tmp);
        // Room for the first cycle file's pages and 8 MiB more; then 64 MiB taken by someone else.
        long reserve = store.getUsableSpace() - QueueSink.AHEAD_BYTES - (8L << 20);
        SetTimeProvider time = new SetTimeProvider("2026-12-02T10:00:00");
        ByteSink record = new ByteSink(64);
        record.writeByte('X');
        try (QueueSink sink = QueueSink.open(tmp.resolve("q"), reserve, false, time)) {
            assertTrue(sink.append(record), "the first append: the reserve leaves room");
            try (RandomAccessFile filler = new RandomAccessFile(tmp.resolve("filler").toFile(), "rw")) {
                filler.setLength(64L << 20);
                filler.getChannel().write(java.nio.ByteBuffer.allocate(64 << 20), 0);
                filler.getFD().sync();
            }
            assertTrue(sink.append(record), "the same day: pages allocated before the disk filled");
            time.advanceMillis(TimeUnit.DAYS.toMillis(1));
            assertFalse(sink.append(record), "the next day's first append would touch a new file's unallocated pages");
            assertTrue(sink.refusal().startsWith("disk full"), sink::refusal);
        }
    }
}
