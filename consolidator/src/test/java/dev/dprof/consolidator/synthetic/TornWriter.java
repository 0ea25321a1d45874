package dev.dprof.consolidator.synthetic;

import dev.dprof.format.RecordType;
import java.nio.file.Path;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * {@code TornWriter QUEUE_DIR}: opens a process queue, starts a batch document, writes part of it
 * and halts the JVM inside the document — what {@code kill -9} does to a drainer mid-append. Run in
 * a JVM of its own.
 */
public final class TornWriter {
    private TornWriter() {
    }

    public static void main(String[] args) {
        SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(Path.of(args[0]))
                .rollCycle(LargeRollCycles.LARGE_DAILY).blockSize(16L << 20).build();
        ExcerptAppender appender = queue.createAppender();
        DocumentContext dc = appender.writingDocument();
        // a batch of thread 20 announcing 1000 events, of which a few bytes made it
        dc.wire().bytes().write(new byte[] {(byte) RecordType.BATCH, 20, 1, (byte) 0xE8, 0x07, 3, 2, 2});
        System.out.println("torn");
        System.out.flush();
        Runtime.getRuntime().halt(9);
    }
}
