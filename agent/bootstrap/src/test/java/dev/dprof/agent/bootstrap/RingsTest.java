package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both ring implementations against one contract. Nothing here waits for time to pass: where a
 * test waits (a native ring is marked dead by its pthread's exit, a little after join returns),
 * it waits for the condition itself, with a far deadline that only turns a hang into a failure.
 */
class RingsTest {
    static final int KIND = 10;

    static int header(int seq) {
        return EventCodes.header(KIND, seq);
    }

    /** What record(variant, header(seq), seq, payloadB(seq, tid)) must have stored. */
    static long expectedA(int seq) {
        return seq % 3 == 0 ? 0 : seq;
    }

    static long expectedB(int seq, long tid) {
        return seq % 3 == 2 ? ~((long) seq) ^ (tid << 32) : 0;
    }

    static int record(Backend backend, int seq, long tid) {
        return backend.record(seq % 3, header(seq), seq, ~((long) seq) ^ (tid << 32));
    }

    /** An odd batch size, so batches straddle the rings' wrap-around. */
    static ByteBuffer scratch() {
        return ByteBuffer.allocateDirect(Rings.SLOT_BYTES * 37);
    }

    static void drainUntil(Backend backend, Collector c, BooleanSupplier done) throws InterruptedException {
        ByteBuffer scratch = scratch();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            backend.drain(c, scratch);
            if (done.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("condition not reached; collected " + c.events.keySet() + ", ended " + c.ended);
            }
            Thread.sleep(1);
        }
    }

    static void assertEvent(Slot s, int seq, long tid) {
        assertEquals(KIND, s.kind(), "kind");
        assertEquals(seq, s.region(), "sequence number in the region id");
        assertEquals(expectedA(seq), s.a(), "a of " + seq);
        assertEquals(expectedB(seq, tid), s.b(), "b of " + seq);
    }

    static void assertTicksNonDecreasing(List<Slot> events) {
        for (int i = 1; i < events.size(); i++) {
            assertTrue(events.get(i).tick() >= events.get(i - 1).tick(), "tick went back at event " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void manyThreadsAllEventsInOrder(Backend backend) throws Exception {
        int threads = 8;
        int perThread = 10_000;
        backend.configure(RingConfig.CLOCK_RDTSC, 16_384);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        List<Long> tids = new ArrayList<>();
        AtomicReference<String> bad = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                long tid = Thread.currentThread().getId();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int seq = 0; seq < perThread; seq++) {
                    int r = record(backend, seq, tid);
                    if (r != (seq == 0 ? 1 : 0)) {
                        bad.compareAndSet(null, "record " + seq + " returned " + r);
                    }
                }
            }, "producer-" + backend + "-" + t);
            ts.add(th);
            tids.add(th.getId());
            th.start();
        }
        go.countDown();
        for (Thread th : ts) {
            th.join();
        }
        assertEquals(null, bad.get());

        Collector c = new Collector();
        drainUntil(backend, c, () -> c.allEnded(tids));

        assertEquals(List.of(), c.violations);
        for (int t = 0; t < threads; t++) {
            long tid = tids.get(t);
            List<Slot> ev = c.of(tid);
            assertEquals(perThread + 2, ev.size(), "START + events + END");
            assertEquals(EventCodes.THREAD_START, ev.get(0).kind());
            assertEquals(0, ev.get(0).region());
            for (int seq = 0; seq < perThread; seq++) {
                assertEvent(ev.get(seq + 1), seq, tid);
            }
            assertEquals(EventCodes.THREAD_END, ev.get(perThread + 1).kind());
            assertTicksNonDecreasing(ev);
            for (Slot s : ev) {
                assertEquals(0, s.cpu(), "cpu is filled only in rdtscp mode");
            }
            assertEquals(0, c.lostOf(tid));
            assertEquals("producer-" + backend + "-" + t, Rings.threadName(tid));
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void concurrentDrainerSeesEveryEventOrCountsItLost(Backend backend) throws Exception {
        int threads = 4;
        int perThread = 20_000;
        backend.configure(RingConfig.CLOCK_RDTSC, 64);
        Collector c = new Collector();
        List<Long> tids = new ArrayList<>();
        long[] drops = new long[threads];
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int slot = t;
            Thread th = new Thread(() -> {
                long tid = Thread.currentThread().getId();
                for (int seq = 0; seq < perThread; seq++) {
                    if (record(backend, seq, tid) < 0) {
                        drops[slot]++;
                    }
                }
            }, "small-ring-" + t);
            ts.add(th);
            tids.add(th.getId());
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread drainer = new Thread(() -> {
            try {
                drainUntil(backend, c, () -> c.allEnded(tids));
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "drainer");
        drainer.start();
        for (Thread th : ts) {
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        drainer.join();
        if (failed.get() != null) {
            throw new AssertionError("drainer failed", failed.get());
        }

        assertEquals(List.of(), c.violations);
        for (int t = 0; t < threads; t++) {
            long tid = tids.get(t);
            List<Slot> ev = c.of(tid);
            assertEquals(EventCodes.THREAD_START, ev.get(0).kind(), "a new ring is empty, START always fits");
            boolean endStored = ev.get(ev.size() - 1).kind() == EventCodes.THREAD_END;
            int stored = ev.size() - 1 - (endStored ? 1 : 0);
            int previous = -1;
            for (int i = 1; i <= stored; i++) {
                Slot s = ev.get(i);
                assertTrue(s.region() > previous, "order kept");
                previous = s.region();
                assertEvent(s, s.region(), tid);
            }
            assertEquals(perThread, stored + drops[t], "every event either drained or refused");
            assertEquals(drops[t] + (endStored ? 0 : 1), c.lostOf(tid), "lost counts refused events and a missing END");
            assertTicksNonDecreasing(ev);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void fullRingCountsExactlyAndKeepsWhatItHas(Backend backend) throws Exception {
        backend.configure(RingConfig.CLOCK_RDTSC, 8);
        Collector c = new Collector();
        ByteBuffer scratch = scratch();
        long tid;
        try (Worker w = new Worker("full-" + backend)) {
            tid = w.tid();
            // START + 7 events fill 8 slots; the other 13 are refused.
            List<Integer> codes = w.call(() -> recordRange(backend, 0, 20));
            assertEquals(1, codes.get(0));
            for (int i = 1; i < 20; i++) {
                assertEquals(i < 7 ? 0 : -1, codes.get(i), "return of record " + i);
            }
            backend.drain(c, scratch);
            assertEquals(8, c.of(tid).size());
            assertEquals(13, c.lostOf(tid));
            assertTrue(!c.hasEnded(tid));

            // Room again: the ring wraps around.
            assertEquals(List.of(0, 0, 0), w.call(() -> recordRange(backend, 20, 23)));
            backend.drain(c, scratch);
            // Full again: 8 fit, 2 are refused.
            List<Integer> more = w.call(() -> recordRange(backend, 23, 33));
            assertEquals(List.of(0, 0, 0, 0, 0, 0, 0, 0, -1, -1), more);
        }
        // The thread is gone while its ring is full: its END is lost too.
        backend.awaitDeadWithoutDraining(tid);
        backend.drain(c, scratch);
        assertTrue(c.hasEnded(tid));

        assertEquals(List.of(), c.violations);
        List<Slot> ev = c.of(tid);
        assertEquals(EventCodes.THREAD_START, ev.get(0).kind());
        List<Integer> seqs = new ArrayList<>();
        for (int i = 1; i < ev.size(); i++) {
            assertEvent(ev.get(i), ev.get(i).region(), tid);
            seqs.add(ev.get(i).region());
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30), seqs);
        assertEquals(13 + 2 + 1, c.lostOf(tid));
        assertTicksNonDecreasing(ev);
    }

    static List<Integer> recordRange(Backend backend, int from, int to) {
        long tid = Thread.currentThread().getId();
        List<Integer> codes = new ArrayList<>();
        for (int seq = from; seq < to; seq++) {
            codes.add(record(backend, seq, tid));
        }
        return codes;
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void endIsStoredWhenThereIsRoom(Backend backend) throws Exception {
        backend.configure(RingConfig.CLOCK_RDTSC, 8);
        Collector c = new Collector();
        long tid;
        try (Worker w = new Worker("room-" + backend)) {
            tid = w.tid();
            w.call(() -> recordRange(backend, 0, 7)); // START + 7: full
            backend.drain(c, scratch());
            assertEquals(8, c.of(tid).size());
        }
        drainUntil(backend, c, () -> c.hasEnded(tid));
        List<Slot> ev = c.of(tid);
        assertEquals(9, ev.size());
        assertEquals(EventCodes.THREAD_END, ev.get(8).kind());
        assertEquals(0, c.lostOf(tid));
    }
}
