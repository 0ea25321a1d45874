package dev.dprof.agent.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.agent.instrument.RegionTable;
import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import dev.dprof.format.ByteSource;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RecordType;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.ThreadInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drainer's warm-up runs every probe kind and its whole write path, but none of it reaches
 * the process's queue, and its scratch queue is gone afterwards.
 */
class DrainerWarmupTest {

    @Test
    void warmUpWritesNothingIntoTheQueueAndLeavesNoScratch(@TempDir Path tmp) throws Exception {
        Path queueDir = tmp.resolve("queue");
        Path warmDir = Files.createDirectories(tmp.resolve("warm"));
        List<String> warnings = new ArrayList<>();
        DomainClock clock = new DomainClock(ClockSource.NANOTIME, System::nanoTime, Optional.empty());
        RegionTable regions = new RegionTable(List.of(), "test");
        regions.register("app.step", "progress", "api", "DProf.progress");
        Drainer drainer = new Drainer(() -> QueueSink.open(queueDir), regions, clock, false, 1,
                1024, (hz, cost) -> new ProcessHeader(RecordType.FORMAT_VERSION, "host", 1, 0, 0, clock.domainId(),
                        ClockSource.NANOTIME, "", hz, Optional.empty(), cost, "jvm", "test", "none", 1),
                warmDir, warnings::add);
        drainer.start();
        assertTrue(drainer.awaitWarm(60_000), "the warm-up ends");
        drainer.stop();

        assertEquals(List.of(), warnings);
        try (Stream<Path> left = Files.list(warmDir)) {
            assertEquals(List.of(), left.toList(), "the scratch queue is deleted");
        }
        List<String> records = records(queueDir);
        assertEquals(List.of("H", "K nanoTime", "R app.step", "T dprof-drainer", "B " + EventKind.PROBE_COST,
                        "E written 1 lost 0"), records, "header, the clock check, the region table, the drainer's name"
                        + " and its probe-cost marker (after the last drain, inside the calibrated span), the end:"
                        + " no warm-up event, and the region in the process's queue");
    }

    /**
     * The drainer opens the queue on its own thread (the start builds the weaver meanwhile): a queue
     * that cannot be opened ends it at once, says why to the start, which then leaves the application
     * unprofiled, and no warm-up or header is attempted.
     */
    @Test
    void aQueueThatCannotBeOpenedEndsTheDrainerAndTellsTheStartWhy(@TempDir Path tmp) throws Exception {
        Path warmDir = Files.createDirectories(tmp.resolve("warm"));
        List<String> warnings = new ArrayList<>();
        DomainClock clock = new DomainClock(ClockSource.NANOTIME, System::nanoTime, Optional.empty());
        IOException refused = new IOException("read-only file system");
        List<String> headers = new ArrayList<>();
        Drainer drainer = new Drainer(() -> {
            throw refused;
        }, new RegionTable(List.of(), "test"), clock, false, 1, 1024, (hz, cost) -> {
            headers.add("asked");
            return new ProcessHeader(RecordType.FORMAT_VERSION, "host", 1, 0, 0, clock.domainId(),
                    ClockSource.NANOTIME, "", hz, Optional.empty(), cost, "jvm", "test", "none", 1);
        }, warmDir, warnings::add);
        drainer.start();
        assertSame(refused, drainer.awaitOpen());
        assertTrue(drainer.awaitWarm(60_000), "the start does not wait for a warm-up that cannot come");
        drainer.stop();

        assertEquals(List.of(), warnings, "the start says it, once");
        assertEquals(List.of(), headers, "no header without a queue");
        try (Stream<Path> left = Files.list(warmDir)) {
            assertEquals(List.of(), left.toList(), "no scratch queue");
        }
    }

    /** One line per document: its type, and what the test needs of it. */
    private static List<String> records(Path dir) throws Exception {
        List<String> out = new ArrayList<>();
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(LargeRollCycles.LARGE_DAILY)
                .readOnly(true).build();
             ExcerptTailer tailer = queue.createTailer()) {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        return out;
                    }
                    Bytes<?> bytes = dc.wire().bytes();
                    byte[] doc = new byte[(int) bytes.readRemaining()];
                    bytes.read(doc);
                    ByteSource in = new ByteSource(ByteBuffer.wrap(doc));
                    int type = in.readByte("type");
                    switch (type) {
                        case RecordType.HEADER -> out.add("H");
                        case RecordType.CLOCK_CHECK -> out.add("K " + ClockCheck.decode(in).counter());
                        case RecordType.REGION -> out.add("R " + RegionInfo.decode(in).name());
                        case RecordType.THREAD -> out.add("T " + ThreadInfo.decode(in).name());
                        case RecordType.BATCH -> {
                            EventBatchReader batch = new EventBatchReader().reset(in);
                            StringBuilder kinds = new StringBuilder("B");
                            while (batch.next()) {
                                kinds.append(' ').append(batch.kind);
                            }
                            out.add(kinds.toString());
                        }
                        case RecordType.END -> {
                            ProcessEnd end = ProcessEnd.decode(in);
                            out.add("E written " + end.eventsWritten() + " lost " + end.lostEvents());
                        }
                        default -> out.add("? " + (char) type);
                    }
                }
            }
        }
    }
}
