package dev.dprof.consolidator.read;

import dev.dprof.clock.ClockSource;
import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RingFile;
import dev.dprof.format.ThreadInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a process that did not end had recorded and not yet written to its queue, taken from its
 * ring files (docs/FORMAT.md "Ring files") as documents in the queue's own encoding, to be read
 * after the queue's. A thread's ring index counts its events from its THREAD_START, and the drainer
 * writes every one of them in order, so the events of a thread already in the queue are the first
 * {@code n} of its ring, {@code n} counted in the queue; the recovered ones are those from
 * {@code max(n, tail)} to the head ({@code tail} being beyond {@code n} only when the queue refused
 * events, which were counted as lost). Nothing is recovered for a process whose queue has its end
 * record: its drainer wrote everything and removed its ring files, or was about to.
 *
 * <p>A process still running goes on appending while it is read: the queue is then read only up to
 * the last document counted here ({@link #lastIndex}), so that no event is read from both.
 */
final class RingRecovery {
    static final RingRecovery NONE = new RingRecovery(List.of(), 0, 0, Long.MAX_VALUE);
    /** Events per recovered batch document, as the drainer's own batches at most. */
    private static final int BATCH_EVENTS = 8192;

    private final List<byte[]> documents;
    private final long events;
    private final int threads;
    private final long lastIndex;

    private RingRecovery(List<byte[]> documents, long events, int threads, long lastIndex) {
        this.documents = documents;
        this.events = events;
        this.threads = threads;
        this.lastIndex = lastIndex;
    }

    /** Reads the queue's records (without anything recovered); returns the index of its last document. */
    @FunctionalInterface
    interface QueueScan {
        long read(RecordVisitor visitor);
    }

    /**
     * Recovers from {@code dir}'s ring files, if the queue ({@code scan}) has no end record; a file
     * that cannot be read is named in {@code problems}.
     */
    static RingRecovery of(Path dir, ProcessHeader header, QueueScan scan, List<String> problems) {
        List<Path> files = ringFiles(dir.resolve(RingFile.DIRECTORY), problems);
        if (files.isEmpty()) {
            return NONE;
        }
        Tally tally = new Tally();
        long lastIndex = scan.read(tally);
        if (tally.ended) {
            return NONE;
        }
        List<byte[]> documents = new ArrayList<>();
        ByteSink sink = new ByteSink(1 << 16);
        long events = 0;
        int threads = 0;
        for (Path file : files) {
            RingFile ring;
            try {
                ring = RingFile.read(file);
            } catch (FormatException e) {
                problems.add(file + ": " + e.getMessage() + "; its events are left out");
                continue;
            }
            if (ring == null || ring.agentOwn() || ring.threadId() < 0) {
                continue;
            }
            long tid = ring.threadId();
            ByteBuffer slots = ring.slotsFrom(Math.max(ring.tail(), tally.written.getOrDefault(tid, 0L)));
            int count = slots.remaining() / EventBatchEncoder.SLOT_BYTES;
            if (count == 0) {
                continue;
            }
            if (tally.named.add(tid)) {
                sink.clear();
                new ThreadInfo(tid, ring.threadName()).encode(sink);
                documents.add(sink.toByteArray());
            }
            for (int from = 0; from < count; from += BATCH_EVENTS) {
                int n = Math.min(BATCH_EVENTS, count - from);
                ByteBuffer chunk = slots.slice(from * EventBatchEncoder.SLOT_BYTES, n * EventBatchEncoder.SLOT_BYTES)
                        .order(slots.order());
                sink.clear();
                EventBatchEncoder.encode(sink, tid, chunk, n, header.simulatedClock().orElse(null),
                        header.clockSource() == ClockSource.RDTSCP);
                documents.add(sink.toByteArray());
            }
            events += count;
            threads++;
        }
        return documents.isEmpty() ? NONE : new RingRecovery(List.copyOf(documents), events, threads, lastIndex);
    }

    /** The ring files in the order their rings were made (their names are sequence numbers). */
    private static List<Path> ringFiles(Path ringDir, List<String> problems) {
        if (!Files.isDirectory(ringDir)) {
            return List.of();
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(ringDir, "*" + RingFile.SUFFIX)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            problems.add(ringDir + ": cannot list the ring files (" + e.getMessage() + "); none is recovered");
            return List.of();
        }
        files.sort(Comparator.comparingLong(RingRecovery::sequence).thenComparing(Path::toString));
        return files;
    }

    private static long sequence(Path file) {
        String name = file.getFileName().toString();
        try {
            return Long.parseLong(name.substring(0, name.length() - RingFile.SUFFIX.length()));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Each thread's events in the queue, the named threads, and whether the queue has its end record. */
    private static final class Tally implements RecordVisitor {
        final Map<Long, Long> written = new HashMap<>();
        final Set<Long> named = new HashSet<>();
        boolean ended;

        @Override
        public void thread(ThreadInfo thread) {
            named.add(thread.threadId());
        }

        @Override
        public void batch(EventBatchReader events) {
            written.merge(events.threadId(), (long) events.count(), Long::sum);
        }

        @Override
        public void end(ProcessEnd end) {
            ended = true;
        }
    }

    /** The recovered THREAD and BATCH records, each as the bytes of a queue document. */
    List<byte[]> documents() {
        return documents;
    }

    /** The index of the last queue document counted: reading the queue stops there. */
    long lastIndex() {
        return lastIndex;
    }

    long events() {
        return events;
    }

    int threads() {
        return threads;
    }
}
