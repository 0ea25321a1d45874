package dev.dprof.format.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer hands the file to a thread of its own: what it wrote must read back whole, and a failed write must be reported. */
class ProfileEventsWriterTest {
    private static final EventKind[] KINDS = {EventKind.ENTER, EventKind.EXIT, EventKind.SEND, EventKind.RECEIVE};

    @Test
    void manyChunksReadBackInOrder(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("events.bin");
        int n = 300_000; // several chunks of the file thread, many blocks
        SplittableRandom random = new SplittableRandom(3);
        long[] lo = new long[n];
        long t = 1L << 40;
        try (ProfileEventsWriter w = new ProfileEventsWriter(file, true)) {
            for (int i = 0; i < n; i++) {
                t += random.nextInt(1, 5000);
                lo[i] = t;
                EventKind kind = KINDS[i % KINDS.length];
                w.write(i % 40, kind, i % 7, t - 99, t, t + random.nextInt(0, 300), t + 5, i, -i);
            }
            assertEquals(n, w.events());
        }
        try (ProfileEventsReader r = new ProfileEventsReader(file, true)) {
            ProfileEvent e = new ProfileEvent();
            for (int i = 0; i < n; i++) {
                assertTrue(r.next(e), "event " + i);
                assertEquals(i % 40, e.stream);
                assertEquals(KINDS[i % KINDS.length], e.kind);
                assertEquals(lo[i], e.lo, "lo of event " + i);
                assertEquals(lo[i] - 99, e.tick);
                assertEquals(lo[i] + 5, e.truth);
            }
            assertFalse(r.next(e));
        }
    }

    @Test
    void aFailedWriteIsReportedWithTheFileName() throws Exception {
        Path full = Path.of("/dev/full"); // every write fails with ENOSPC
        if (!Files.isWritable(full)) {
            return;
        }
        IOException e = assertThrows(IOException.class, () -> {
            try (ProfileEventsWriter w = new ProfileEventsWriter(full, false)) {
                for (int i = 0; i < 200_000; i++) {
                    w.write(0, EventKind.ENTER, 0, i, i, i + 1, 0, 0, 0);
                }
            }
        });
        assertTrue(e.getMessage().contains("/dev/full"), e.getMessage());
    }
}
