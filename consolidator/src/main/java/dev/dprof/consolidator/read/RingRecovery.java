package dev.dprof.consolidator.read;

import dev.dprof.clock.ClockSource;
import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.HostRecords;
import dev.dprof.format.ByteSource;
import dev.dprof.format.RecordType;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
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
 * <p>With the drainer in a process of its own, the host's records ({@link HostRecords}) hold the
 * documents the rings do not (regions, virtual threads' names, TCP connections): those its drainer
 * had not appended come first, and the rings of the threads they name as the agent's are skipped.
 *
 * <p>A process still running goes on appending while it is read: the queue is then read only up to
 * the last document counted here ({@link #lastIndex}), so that no event is read from both.
 *
 * <p>It also counts what such a process lost ({@link ProcessLoss}): each ring's own {@code lost}
 * field (events its full ring dropped, also after the drainer's last loss record), the events
 * between what the queue has of a thread and the ring's {@code tail} (handed back by a drainer whose
 * queue refused them), and the files it could not read, named with the most events they could hold.
 */
final class RingRecovery {
    static final RingRecovery NONE = new RingRecovery(List.of(), 0, 0, Long.MAX_VALUE, Map.of(), 0, 0, List.of(), 0);
    /** Events per recovered batch document, as the drainer's own batches at most. */
    private static final int BATCH_EVENTS = 8192;

    private final List<byte[]> documents;
    private final long events;
    private final int threads;
    private final long lastIndex;
    private final Map<Long, Long> ringLost;
    private final long refused;
    private final long corruptSlots;
    private final List<String> damaged;
    /** Of {@link #refused}, the events handed back whose documents a cut queue file lost. */
    private final long cutOff;

    private RingRecovery(List<byte[]> documents, long events, int threads, long lastIndex, Map<Long, Long> ringLost,
                         long refused, long corruptSlots, List<String> damaged, long cutOff) {
        this.documents = documents;
        this.events = events;
        this.threads = threads;
        this.lastIndex = lastIndex;
        this.ringLost = ringLost;
        this.refused = refused;
        this.corruptSlots = corruptSlots;
        this.damaged = damaged;
        this.cutOff = cutOff;
    }

    /** Reads the queue's records (without anything recovered); returns the index of its last document. */
    @FunctionalInterface
    interface QueueScan {
        long read(RecordVisitor visitor);
    }

    /**
     * Recovers from {@code dir}'s ring files, if the queue ({@code scan}) has no end record; a file
     * that cannot be read is named in {@code problems}. When a queue file was {@code cut} short, what
     * a ring handed back beyond what the queue still holds is what the cut took (also for a thread
     * whose name the cut took): counted exactly, from the ring's {@code tail}.
     */
    static RingRecovery of(Path dir, ProcessHeader header, QueueScan scan, boolean cut, List<String> problems) {
        Path ringDir = dir.resolve(RingFile.DIRECTORY);
        List<String> damaged = new ArrayList<>();
        List<Path> files = ringFiles(ringDir, damaged);
        HostRecords.Contents host = HostRecords.read(ringDir);
        if (files.isEmpty() && damaged.isEmpty() && host.isEmpty()) {
            return NONE;
        }
        Tally tally = new Tally();
        long lastIndex = scan.read(tally);
        if (tally.ended) {
            // The end record counts everything the process lost; its ring files no longer matter.
            return NONE;
        }
        List<byte[]> documents = new ArrayList<>();
        // What a drainer in its own process had not appended of the host's records: the regions, names and
        // connections the recovered batches use come before them, as in the queue.
        for (ByteBuffer record : host.pending()) {
            byte[] bytes = new byte[record.remaining()];
            record.duplicate().get(bytes);
            documents.add(bytes);
            tally.hostRegion(bytes);
        }
        // A torn host record loses no event (those are in the rings): named, not counted as an unreadable ring.
        problems.addAll(host.problems());
        ByteSink sink = new ByteSink(1 << 16);
        long events = 0;
        int threads = 0;
        Map<Long, Long> ringLost = new HashMap<>();
        long refused = 0;
        long cutOff = 0;
        long corruptSlots = 0;
        List<String> slotProblems = new ArrayList<>();
        SlotCheck check = new SlotCheck(tally.regions, ProcessQueue.mayHaveVirtualThreads(header.jvm()));
        for (Path file : files) {
            RingFile ring;
            try {
                ring = RingFile.read(file);
            } catch (FormatException e) {
                damaged.add(file + ": " + e.getMessage() + "; its events" + capacity(file) + " are left out, uncounted");
                continue;
            }
            if (ring == null || ring.agentOwn() || ring.threadId() < 0 || host.agentThreads().contains(ring.threadId())) {
                continue;
            }
            long tid = ring.threadId();
            ringLost.merge(tid, ring.lost(), Long::sum);
            long inQueue = tally.written.getOrDefault(tid, 0L);
            // In statistics mode the drainer hands back what it aggregated without writing it (or wrote only
            // within trace windows): a tail beyond the queue's batches is no refusal there.
            if (!header.statisticsMode() && (tally.named.contains(tid) || cut) && ring.tail() > inQueue) {
                // Handed back by the drainer, not in the queue: refused by it (a full disk), or cut off with the file.
                refused += ring.tail() - inQueue;
                cutOff += cut ? ring.tail() - inQueue : 0;
            }
            long start = Math.min(Math.max(ring.tail(), inQueue), ring.head());
            ByteBuffer slots = ring.slotsFrom(start);
            int stored = slots.remaining() / EventBatchEncoder.SLOT_BYTES;
            long[] faults = new long[SlotCheck.Fault.values().length];
            slots = intactSlots(slots, stored, start, ring.head(), check, faults);
            int count = slots.remaining() / EventBatchEncoder.SLOT_BYTES;
            if (count < stored) {
                corruptSlots += stored - count;
                slotProblems.add(file + ": " + (stored - count) + " of its " + stored + " pending slots are corrupt ("
                        + faults(faults) + ") and left out, counted as lost");
            }
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
        problems.addAll(damaged);
        problems.addAll(slotProblems);
        return new RingRecovery(List.copyOf(documents), events, threads, documents.isEmpty() ? Long.MAX_VALUE : lastIndex,
                Map.copyOf(ringLost), refused, corruptSlots, List.copyOf(damaged), cutOff);
    }

    /**
     * The slots that pass the checks a slot allows without a checksum of its own: what a probe can
     * have written there ({@link SlotCheck}: a known kind, of a region in the table that records it,
     * at a place of the ring where it can be), and a tick neither before the thread's last intact
     * one nor after the next slot's when that one is in order (one thread's ticks never go back, so
     * a slot out of line with both neighbours is the damaged one). A flipped bit that leaves all of
     * them true (a low tick bit, a payload, a region id or kind turned into another that fits) is not
     * found: the ring has no per-slot check (see FORMAT.md).
     *
     * @param first  the ring index of the first slot
     * @param head   the ring's head
     * @param faults counts the slots left out, by {@link SlotCheck.Fault} ordinal
     */
    static ByteBuffer intactSlots(ByteBuffer slots, int count, long first, long head, SlotCheck check, long[] faults) {
        int size = EventBatchEncoder.SLOT_BYTES;
        ByteBuffer out = ByteBuffer.allocate(count * size).order(slots.order());
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < count; i++) {
            int base = i * size;
            long tick = slots.getLong(base);
            SlotCheck.Fault fault = check.fault(slots.getInt(base + 8), slots.getLong(base + 16), first + i, head);
            if (fault == null && (tick < previous
                    || i + 1 < count && slots.getLong(base + size) >= previous && tick > slots.getLong(base + size))) {
                fault = SlotCheck.Fault.TICK_ORDER;
            }
            if (fault != null) {
                faults[fault.ordinal()]++;
                continue;
            }
            out.put(slots.slice(base, size));
            previous = tick;
        }
        return out.flip().order(slots.order());
    }

    /** "N an unknown event kind, M a tick out of its thread's order": the counts that are not zero. */
    private static String faults(long[] faults) {
        List<String> parts = new ArrayList<>();
        for (SlotCheck.Fault f : SlotCheck.Fault.values()) {
            if (faults[f.ordinal()] > 0) {
                parts.add(faults[f.ordinal()] + " " + f.text);
            }
        }
        return String.join(", ", parts);
    }

    /** Pending slots left out as corrupt ({@link #intactSlots}). */
    long corruptSlots() {
        return corruptSlots;
    }

    /** " (at most N)": the most events a damaged ring file of this length could hold; empty if unknown. */
    private static String capacity(Path file) {
        try {
            long slots = (Files.size(file) - RingFile.HEADER_BYTES) / EventBatchEncoder.SLOT_BYTES;
            return slots > 0 ? " (at most " + slots + ")" : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** The ring files in the order their rings were made (their names are sequence numbers). */
    private static List<Path> ringFiles(Path ringDir, List<String> problems) {
        if (!Files.isDirectory(ringDir)) {
            if (Files.exists(ringDir)) {
                problems.add(ringDir + ": not a directory; the events its ring files held are lost, uncounted");
            }
            return List.of();
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(ringDir, "*" + RingFile.SUFFIX)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            problems.add(ringDir + ": cannot list the ring files (" + e.getMessage() + "); none is recovered,"
                    + " their events are lost, uncounted");
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

    /** Each thread's events in the queue, the named threads, the region table, and whether the queue has its end record. */
    private static final class Tally implements RecordVisitor {
        final Map<Long, Long> written = new HashMap<>();
        final Set<Long> named = new HashSet<>();
        final Map<Integer, RegionInfo> regions = new HashMap<>();
        boolean ended;

        @Override
        public void region(RegionInfo region) {
            regions.put(region.id(), region);
        }

        /**
         * A region the host published for a drainer process that had not appended it: the recovered
         * slots may use it as they may use the queue's (the slot check's table holds both).
         */
        void hostRegion(byte[] document) {
            if (document.length == 0 || document[0] != RecordType.REGION) {
                return;
            }
            ByteSource in = new ByteSource(ByteBuffer.wrap(document));
            try {
                in.readByte("record type");
                region(RegionInfo.decode(in));
            } catch (FormatException e) {
                // a record that passed its checksum and does not decode: its slots are left out as of no region
            }
        }

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

    /** Each thread's events its ring files say it dropped (their {@code lost} fields). */
    Map<Long, Long> ringLost() {
        return ringLost;
    }

    /** Events the drainer handed back to rings without the queue holding them. */
    long refused() {
        return refused;
    }

    /** Of {@link #refused}, what a cut queue file took. */
    long cutOff() {
        return cutOff;
    }

    /** Whether ring files were read and none was damaged: then they count what a cut queue file took. */
    boolean countsTheCut() {
        return this != NONE && damaged.isEmpty();
    }

    /** The ring files (or ring directory) that could not be read, each with what it cost. */
    List<String> damaged() {
        return damaged;
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
