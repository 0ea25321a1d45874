package dev.dprof.consolidator.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventCodes;
import dev.dprof.format.FormatException;
import dev.dprof.format.ThreadInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Virtual threads read as threads of their own: each one's events, recorded on whichever carriers
 * it ran, come in its order through {@link ProcessQueue#read} and through its cursor, and a
 * carrier keeps only its own events — whatever the order in which the carriers' batches were
 * drained, and wherever the drain cut a piece.
 */
class VirtualThreadSplitTest {
    private static final int REGION = 3;
    private static final int MOUNT = EventCodes.VT_MOUNT;
    private static final int UNMOUNT = EventCodes.VT_UNMOUNT;

    /** Every event of one process: per recording thread (the carrier) its slots, and whose each is. */
    private record History(Map<Long, List<long[]>> recorded, Map<Long, List<Long>> expected) {
    }

    /**
     * Random schedules of virtual threads on carriers: a virtual thread runs on one carrier at a
     * time, parks (unmount) and resumes on any carrier; carriers record events of their own in
     * between. Batches are cut anywhere and drained in any order that keeps each carrier's own.
     */
    @Test
    void eachVirtualThreadReadsInItsOrderWhateverTheDrainOrder(@TempDir Path tmp) throws Exception {
        Random random = new Random(11);
        for (int run = 0; run < 60; run++) {
            History h = schedule(random, 1 + random.nextInt(3), 1 + random.nextInt(6), 40 + random.nextInt(200));
            Path dir = tmp.resolve("run-" + run);
            try (TestQueue q = new TestQueue(dir, "25")) {
                writeShuffled(q, h.recorded, random);
                q.end();
            }
            check(dir, h, "run " + run);
        }
    }

    /**
     * A piece written before the one ahead of it in its thread's order (the drainer copied the first
     * carrier's ring before the piece was stored there): it waits, and both come in order.
     */
    @Test
    void aPieceDrainedBeforeTheOneAheadOfItWaitsForIt(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        long vt = 500;
        List<long[]> first = List.of(e(10, MOUNT, vt), e(11, EventCodes.THREAD_START), e(12, ENTER()),
                e(13, UNMOUNT, vt));
        List<long[]> second = List.of(e(20, MOUNT, vt), e(21, EXIT()), e(22, EventCodes.THREAD_END), e(23, UNMOUNT, vt));
        try (TestQueue q = new TestQueue(dir, "25")) {
            q.thread(vt, "virtual-500");
            q.batch(2, List.of(e(5, EventCodes.THREAD_START)));
            q.batch(2, second);
            q.batch(1, List.of(e(4, EventCodes.THREAD_START)));
            q.batch(1, first);
            q.end();
        }
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            Map<Long, String> names = new LinkedHashMap<>();
            Map<Long, List<Long>> read = TestQueue.read(q, names);
            assertEquals(List.of(10L, 11L, 12L, 13L, 20L, 21L, 22L, 23L), read.get(vt));
            assertEquals(List.of(5L), read.get(2L));
            assertEquals(List.of(4L), read.get(1L));
            assertEquals("virtual-500", names.get(vt));
            assertEquals(read.get(vt), TestQueue.cursorTicks(q, vt));
        }
    }

    /** A lost unmount ends the piece at the carrier's next mount; a lost mount leaves the unmount a piece by itself. */
    @Test
    void lostMarkersCostOnlyTheEventsBetween(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        try (TestQueue q = new TestQueue(dir, "25")) {
            q.batch(1, List.of(e(1, EventCodes.THREAD_START), e(2, MOUNT, 7), e(3, ENTER()), e(4, MOUNT, 8), e(5, ENTER()),
                    e(6, UNMOUNT, 8), e(7, EXIT()), e(8, UNMOUNT, 7), e(9, EXIT())));
            q.end();
        }
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            Map<Long, List<Long>> read = TestQueue.read(q, new LinkedHashMap<>());
            assertEquals(List.of(2L, 3L), read.get(7L).subList(0, 2));
            assertEquals(List.of(2L, 3L, 8L), read.get(7L));
            assertEquals(List.of(4L, 5L, 6L), read.get(8L));
            assertEquals(List.of(1L, 7L, 9L), read.get(1L));
            for (long t : read.keySet()) {
                assertEquals(read.get(t), TestQueue.cursorTicks(q, t), "thread " + t);
            }
        }
    }

    /** A queue written by JDK 17 is never indexed: its batches pass through as they are. */
    @Test
    void aJdk17QueueReadsAsWritten(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        try (TestQueue q = new TestQueue(dir, "17.0.15+6")) {
            q.batch(1, List.of(e(1, EventCodes.THREAD_START), e(2, MOUNT, 7), e(3, ENTER()), e(4, UNMOUNT, 7)));
            q.end();
        }
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            assertEquals(Map.of(1L, List.of(1L, 2L, 3L, 4L)), TestQueue.read(q, new LinkedHashMap<>()));
        }
        assertTrue(ProcessQueue.mayHaveVirtualThreads("21.0.2+13-LTS"));
        assertTrue(ProcessQueue.mayHaveVirtualThreads("not a version"));
    }

    /**
     * A killed process: a carrier's last events only in its ring file, among them the end of a piece
     * whose start is in the queue and a piece of another thread. Both threads read whole, once.
     */
    @Test
    void piecesRecoveredFromRingFilesJoinTheirThreads(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        List<long[]> carrier = List.of(e(1, EventCodes.THREAD_START), e(2, MOUNT, 7), e(3, ENTER()), e(4, EXIT()),
                e(5, UNMOUNT, 7), e(6, MOUNT, 8), e(7, ENTER()), e(8, UNMOUNT, 8));
        try (TestQueue q = new TestQueue(dir, "25")) {
            q.region(REGION, "step", "plain");
            q.thread(1, "carrier");
            q.batch(1, carrier.subList(0, 3));
            q.batch(2, List.of(e(9, EventCodes.THREAD_START), e(10, MOUNT, 7), e(11, EXIT()), e(12, UNMOUNT, 7)));
        }
        RingRecoveryTest.ringFile(dir, 1, 1, "carrier", carrier, 3, 0);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            Map<Long, List<Long>> read = TestQueue.read(q, new LinkedHashMap<>());
            assertEquals(List.of(2L, 3L, 4L, 5L, 10L, 11L, 12L), read.get(7L));
            assertEquals(List.of(6L, 7L, 8L), read.get(8L));
            assertEquals(List.of(1L), read.get(1L));
            assertEquals(List.of(9L), read.get(2L));
            for (long t : read.keySet()) {
                assertEquals(read.get(t), TestQueue.cursorTicks(q, t), "thread " + t);
            }
        }
    }

    /**
     * Damaged markers: a mount naming a thread with batches of its own (thread ids are one across
     * platform and virtual threads, so it is no virtual thread) is the carrier's own event, and one
     * naming a negative id is a thread of its own. Every reader sees the same events: the sequential
     * reading and each thread's cursor, which never takes a negative id for "every thread".
     */
    @Test
    void damagedMarkersReadTheSameInEveryReader(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("p");
        try (TestQueue q = new TestQueue(dir, "25")) {
            q.region(REGION, "step", "plain");
            q.batch(1, List.of(e(1, EventCodes.THREAD_START), e(2, MOUNT, 2), e(3, ENTER()), e(4, UNMOUNT, 7),
                    e(5, MOUNT, -5), e(6, EXIT()), e(7, UNMOUNT, -5), e(8, ENTER())));
            q.batch(2, List.of(e(9, EventCodes.THREAD_START), e(10, MOUNT, 1), e(11, EXIT())));
        }
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            Map<Long, List<Long>> read = TestQueue.read(q, new LinkedHashMap<>());
            assertEquals(Map.of(1L, List.of(1L, 2L, 3L, 8L), 7L, List.of(4L), -5L, List.of(5L, 6L, 7L),
                    2L, List.of(9L, 10L, 11L)), read);
            for (long t : read.keySet()) {
                assertEquals(read.get(t), TestQueue.cursorTicks(q, t), "thread " + t);
            }
        }
    }

    private static void check(Path dir, History h, String what) throws Exception {
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            Map<Long, List<Long>> read = TestQueue.read(q, new LinkedHashMap<>());
            assertEquals(List.of(), q.problems(), what);
            Map<Long, List<Long>> expected = new TreeMap<>();
            h.expected.forEach((t, ticks) -> {
                if (!ticks.isEmpty()) {
                    expected.put(t, ticks);
                }
            });
            assertEquals(expected, new TreeMap<>(read), what);
            for (long t : expected.keySet()) {
                assertEquals(expected.get(t), TestQueue.cursorTicks(q, t), what + ", cursor of thread " + t);
            }
        }
    }

    /**
     * {@code carriers} carriers (ids 1..) and {@code threads} virtual threads (ids 1000..), {@code steps}
     * events in all; ticks rise by one per event across the process, as one TSC does.
     */
    private static History schedule(Random random, int carriers, int threads, int steps) {
        Map<Long, List<long[]>> recorded = new LinkedHashMap<>();
        Map<Long, List<Long>> expected = new LinkedHashMap<>();
        long[] mounted = new long[carriers];
        boolean[] running = new boolean[threads];
        long tick = 100;
        for (int c = 0; c < carriers; c++) {
            recorded.put(c + 1L, new ArrayList<>());
            expected.put(c + 1L, new ArrayList<>());
            add(recorded, expected, c + 1L, c + 1L, e(tick++, EventCodes.THREAD_START));
        }
        for (int v = 0; v < threads; v++) {
            expected.put(1000L + v, new ArrayList<>());
        }
        for (int step = 0; step < steps; step++) {
            int c = random.nextInt(carriers);
            long carrier = c + 1L;
            if (mounted[c] != 0) {
                long vt = mounted[c];
                if (random.nextInt(4) == 0) {
                    add(recorded, expected, carrier, vt, e(tick++, UNMOUNT, vt));
                    running[(int) (vt - 1000)] = false;
                    mounted[c] = 0;
                } else {
                    add(recorded, expected, carrier, vt, e(tick++, random.nextBoolean() ? ENTER() : EXIT()));
                }
                continue;
            }
            int v = random.nextInt(threads);
            if (!running[v] && random.nextBoolean()) {
                running[v] = true;
                mounted[c] = 1000L + v;
                add(recorded, expected, carrier, mounted[c], e(tick++, MOUNT, mounted[c]));
            } else {
                add(recorded, expected, carrier, carrier, e(tick++, ENTER()));
            }
        }
        return new History(recorded, expected);
    }

    private static void add(Map<Long, List<long[]>> recorded, Map<Long, List<Long>> expected, long carrier, long owner,
                            long[] event) {
        recorded.get(carrier).add(event);
        expected.get(owner).add(event[0]);
    }

    /** Cuts each carrier's slots into batches and appends them in a random order that keeps each carrier's. */
    private static void writeShuffled(TestQueue q, Map<Long, List<long[]>> recorded, Random random) {
        Map<Long, List<List<long[]>>> batches = new LinkedHashMap<>();
        recorded.forEach((carrier, events) -> {
            List<List<long[]>> cut = new ArrayList<>();
            for (int from = 0; from < events.size(); ) {
                int n = Math.min(events.size() - from, 1 + random.nextInt(8));
                cut.add(events.subList(from, from + n));
                from += n;
            }
            batches.put(carrier, cut);
        });
        List<Long> left = new ArrayList<>(batches.keySet());
        while (!left.isEmpty()) {
            long carrier = left.get(random.nextInt(left.size()));
            List<List<long[]>> cut = batches.get(carrier);
            q.batch(carrier, cut.remove(0));
            if (cut.isEmpty()) {
                left.remove(carrier);
            }
        }
    }

    private static int ENTER() {
        return EventCodes.header(EventCodes.ENTER, REGION);
    }

    private static int EXIT() {
        return EventCodes.header(EventCodes.EXIT, REGION);
    }

    private static long[] e(long tick, int header) {
        return new long[] {tick, header};
    }

    private static long[] e(long tick, int header, long a) {
        return new long[] {tick, header, a};
    }
}
