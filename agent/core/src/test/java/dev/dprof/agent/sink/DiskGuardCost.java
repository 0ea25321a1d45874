package dev.dprof.agent.sink;

import dev.dprof.format.ByteSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;

/**
 * What the disk guard costs the drainer (BENCHMARKS.md, "Robustness"): {@code DiskGuardCost DIR
 * RECORDS BYTES ROUNDS} appends RECORDS records of BYTES random bytes to a fresh queue in DIR,
 * through {@link QueueSink} (the guard: pages allocated by writes ahead of Chronicle) and, in
 * alternation in the same JVM, straight through a Chronicle appender built the same way (no
 * guard, the baseline), and prints the time per MiB appended of each and their ratio. A tool run
 * by hand, not a test: a timing decides nothing here.
 */
public final class DiskGuardCost {
    private DiskGuardCost() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int records = Integer.parseInt(args[1]);
        int bytes = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        ByteSink record = new ByteSink(bytes);
        byte[] content = new byte[bytes];
        new Random(1).nextBytes(content);
        content[0] = 'B';
        for (byte b : content) {
            record.writeByte(b);
        }
        double mib = (double) records * bytes / (1 << 20);
        double guarded = 0;
        double plain = 0;
        for (int round = 0; round < rounds + 1; round++) {
            long g = guarded(dir.resolve("g" + round), record, records);
            long p = plain(dir.resolve("p" + round), record, records);
            if (round > 0) { // the first round warms up
                guarded += g;
                plain += p;
            }
        }
        System.out.printf(Locale.ROOT, "%d records of %d bytes (%.1f MiB) x %d rounds: guarded %.3f ms/MiB, plain %.3f"
                + " ms/MiB, ratio %.3f%n", records, bytes, mib, rounds, guarded / rounds / mib / 1e6,
                plain / rounds / mib / 1e6, guarded / plain);
    }

    private static long guarded(Path dir, ByteSink record, int records) throws Exception {
        try (QueueSink sink = QueueSink.open(dir)) {
            sink.append(record); // creates the cycle file, as the header record does
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                if (!sink.append(record)) {
                    throw new IllegalStateException(sink.refusal());
                }
            }
            return System.nanoTime() - start;
        } finally {
            delete(dir);
        }
    }

    private static long plain(Path dir, ByteSink record, int records) throws Exception {
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(LargeRollCycles.LARGE_DAILY)
                .blockSize(16L << 20).build(); ExcerptAppender appender = queue.createAppender()) {
            Bytes<byte[]> wrapper = Bytes.wrapForRead(record.array());
            wrapper.readPositionRemaining(0, record.size());
            appender.writeBytes(wrapper);
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                wrapper.readPositionRemaining(0, record.size());
                appender.writeBytes(wrapper);
            }
            return System.nanoTime() - start;
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path dir) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
