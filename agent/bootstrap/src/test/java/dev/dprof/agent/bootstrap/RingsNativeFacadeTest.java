package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;
import dev.dprof.format.RingFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public face as an agent uses it: init first, then Rings. Runs in a JVM of its own. */
class RingsNativeFacadeTest {
    static final int RING_EVENTS = 1024;
    static String line;
    @TempDir
    static Path ringDir;

    @BeforeAll
    static void init() throws Exception {
        NativeRequired.assumeLoaded();
        line = RingConfig.init(true, RingConfig.CLOCK_RDTSC, RING_EVENTS);
        Rings.useRingFiles(ringDir);
    }

    @Test
    void initChoosesNative() {
        assertTrue(Rings.NATIVE, line);
        assertTrue(line.contains("probes use rdtsc"), line);
        assertSame(line, RingConfig.init(false, RingConfig.CLOCK_RDTSCP, 8), "init is once per JVM");
        assertEquals("rdtsc", RingConfig.clockSource());
    }

    @Test
    void recordsThroughTheFacade() throws Exception {
        Thread t = new Thread(() -> {
            Rings.record(EventCodes.header(10, 1));
            Rings.record(EventCodes.header(10, 2), 22);
            Rings.record(EventCodes.header(10, 3), 33, 44);
        }, "facade-thread");
        t.start();
        t.join();
        Collector c = new Collector();
        long tid = t.getId();
        ByteBuffer scratch = ByteBuffer.allocateDirect(4096);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!c.hasEnded(tid) && System.nanoTime() < deadline) {
            Rings.drain(c, scratch);
            Thread.sleep(1);
        }
        List<Slot> ev = c.of(tid);
        assertEquals(5, ev.size());
        assertEquals(List.of(1, 10, 10, 10, 2), List.of(ev.get(0).kind(), ev.get(1).kind(), ev.get(2).kind(), ev.get(3).kind(), ev.get(4).kind()));
        assertEquals(0, ev.get(1).a());
        assertEquals(22, ev.get(2).a());
        assertEquals(0, ev.get(2).b());
        assertEquals(33, ev.get(3).a());
        assertEquals(44, ev.get(3).b());
        assertEquals("facade-thread", Rings.threadName(tid));
        assertEquals(0, Rings.totalLost());
    }

    /**
     * The drain at shutdown ends a joined thread with exactly one THREAD_END, whether its pthread
     * destructor has run yet or not (either may happen: it runs a little after join returns), and
     * leaves a thread that is still alive open.
     */
    @Test
    void lastDrainEndsEveryEndedThreadExactlyOnce() throws Exception {
        Parked alive = new Parked("still-running", () -> Rings.record(EventCodes.header(10, 7)));
        Thread ended = new Thread(() -> Rings.record(EventCodes.header(10, 8)), "just-ended");
        ended.start();
        ended.join();

        Collector c = new Collector();
        Rings.drainLast(c, ByteBuffer.allocateDirect(4096));
        alive.end();

        assertEquals(List.of(), c.violations);
        assertEquals(List.of(1, 10, 2), c.of(ended.getId()).stream().map(Slot::kind).toList());
        assertTrue(c.hasEnded(ended.getId()));
        assertEquals(List.of(1, 10), c.of(alive.id()).stream().map(Slot::kind).toList());
        assertFalse(c.hasEnded(alive.id()), "a live thread has not ended");
    }

    /**
     * A thread whose ring is made while the shutdown's drain runs (its pass listed the rings
     * already), as a shutdown hook that ends beside it and whose end {@code main} joins: the drain
     * still hands its events over, since it passes again until a pass finds nothing.
     */
    @Test
    void lastDrainTakesARingMadeDuringIt() throws Exception {
        Thread early = new Thread(() -> Rings.record(EventCodes.header(10, 8)), "early");
        early.start();
        early.join();
        Thread late = new Thread(() -> Rings.record(EventCodes.header(10, 9), 99), "made-during-the-drain");
        Collector c = new Collector();
        RingVisitor startingLate = (tid, slots, count, lostSoFar, ended) -> {
            c.batch(tid, slots, count, lostSoFar, ended);
            if (late.getState() == Thread.State.NEW) {
                late.start();
                try {
                    late.join();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
        };
        Rings.drainLast(startingLate, ByteBuffer.allocateDirect(4096));

        assertEquals(List.of(), c.violations);
        List<Slot> made = c.of(late.getId());
        assertEquals(List.of(1, 10, 2), made.stream().map(Slot::kind).toList(), "its start, its event, its end");
        assertEquals(99, made.get(1).a());
        assertTrue(c.hasEnded(late.getId()));
    }

    /** Longer than any test may take: a sleep that ends only by its timeout fails the test. */
    private static final long FOREVER_NANOS = 600_000_000_000L;
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    @Test
    void ringFilesMakeTheRingsDurable() {
        assertTrue(Rings.durable(), "every ring of this JVM was made after the ring directory was set");
    }

    @Test
    void noSleepWhileARingIsHalfFull() throws Exception {
        Thread t = new Thread(() -> {
            for (int i = 0; i < RING_EVENTS / 2; i++) {
                Rings.record(EventCodes.header(10, 5));
            }
        }, "half");
        t.start();
        t.join();
        assertFalse(assertTimeoutPreemptively(LIVENESS, () -> Rings.awaitFill(FOREVER_NANOS)),
                "a half-full ring: the consumer must drain, not sleep");
        drainUntilEnded(new Collector(), t.getId());
    }

    @Test
    void aWakeBeforeTheSleepIsNotLost() {
        Rings.wakeConsumer();
        assertFalse(assertTimeoutPreemptively(LIVENESS, () -> Rings.awaitFill(FOREVER_NANOS)));
    }

    /**
     * Events alone do not end the sleep; a ring reaching half full does, whether it got there before
     * or after the sleep began.
     */
    @Test
    void aRingReachingHalfFullEndsTheSleep() throws Exception {
        Collector c = new Collector();
        ByteBuffer scratch = ByteBuffer.allocateDirect(64 * Rings.SLOT_BYTES);
        CountDownLatch go = new CountDownLatch(1);
        Thread filler = new Thread(() -> {
            try {
                go.await();
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (int i = 0; i < RING_EVENTS / 2 + 1; i++) {
                Rings.record(EventCodes.header(10, 6));
            }
        }, "filler");
        filler.start();
        assertTimeoutPreemptively(LIVENESS, () -> {
            Rings.drain(c, scratch);
            go.countDown();
            while (!Rings.awaitFill(FOREVER_NANOS)) {
                Rings.drain(c, scratch);
                if (c.of(filler.getId()).size() > RING_EVENTS / 2) {
                    break;
                }
                Thread.sleep(1);
            }
        }, "the fill must end the sleep");
        filler.join();
        drainUntilEnded(c, filler.getId());
        assertEquals(RING_EVENTS / 2 + 3, c.of(filler.getId()).size(), "start, the events, end");
    }

    /**
     * A ring file holds what the queue does not have yet: the pending slots, from the tail the
     * consumer hands back only after taking them, the thread's id and name; an ended thread's file
     * has its end and goes once the ring is drained. An agent thread's ring is marked as its own.
     */
    @Test
    void theRingFileHoldsWhatIsNotYetDrained() throws Exception {
        Parked t = new Parked("filed-\u00e9", () -> {
            Rings.record(EventCodes.header(10, 1), 11);
            Rings.record(EventCodes.header(10, 2), 22, 33);
        });
        long tid = t.id();
        Path file = ringFileOf(tid);
        RingFile ring = RingFile.read(file);
        assertEquals("filed-\u00e9", ring.threadName());
        assertEquals(0, ring.tail());
        assertEquals(3, ring.head());
        assertFalse(ring.dead());
        assertFalse(ring.agentOwn());
        ByteBuffer slots = ring.slotsFrom(0);
        assertEquals(List.of(1, 10, 10), List.of(Slot.read(slots, 0).kind(), Slot.read(slots, 1).kind(),
                Slot.read(slots, 2).kind()));
        assertEquals(22, Slot.read(slots, 2).a());
        assertEquals(33, Slot.read(slots, 2).b());
        assertEquals(2, ring.slotsFrom(1).remaining() / Rings.SLOT_BYTES);

        Collector c = new Collector();
        Rings.drain(c, ByteBuffer.allocateDirect(4096));
        assertEquals(3, c.of(tid).size());
        RingFile drained = RingFile.read(file);
        assertEquals(3, drained.tail(), "drained slots are handed back");
        assertEquals(0, drained.slotsFrom(0).remaining());

        t.end();
        Backend.NATIVE.awaitDeadWithoutDraining(tid);
        RingFile ended = RingFile.read(file);
        assertTrue(ended.dead());
        assertEquals(2, Slot.read(ended.slotsFrom(3), 0).kind(), "THREAD_END is pending in the file");
        drainUntilEnded(c, tid);
        assertFalse(Files.exists(file), "a released ring's file is removed");

        // An agent thread marked before its first event gets no file at all, and the rings stay durable.
        Thread own = new Thread(() -> {
            Rings.markThreadPrivate();
            Rings.record(EventCodes.header(10, 1));
        }, "agent-own");
        own.start();
        own.join();
        assertFalse(hasRingFile(own.getId()));
        assertTrue(Rings.durable(), "an agent thread's ring is not the application's volatile one");
        drainUntilEnded(c, own.getId());
        // Marked after its first event: the file stays, flagged.
        Thread late = new Thread(() -> {
            Rings.record(EventCodes.header(10, 1));
            Rings.markThreadPrivate();
        }, "agent-own-late");
        late.start();
        late.join();
        assertTrue(RingFile.read(ringFileOf(late.getId())).agentOwn());
        drainUntilEnded(c, late.getId());
    }

    /**
     * A ring whose file cannot be made (here: the directory is gone; in practice a full disk) lives
     * in memory instead, and while it does the rings are not durable, so the drainer polls at its
     * interval; once that ring is released they are durable again.
     */
    @Test
    void aRingWithoutItsFileMakesTheRingsVolatileUntilReleased() throws Exception {
        assertTrue(NativeRing.setRingDirectory(ringDir.resolve("missing").toString()));
        Parked t;
        try {
            t = new Parked("no-file", () -> Rings.record(EventCodes.header(10, 1)));
        } finally {
            assertTrue(NativeRing.setRingDirectory(ringDir.toString()));
        }
        assertFalse(hasRingFile(t.id()));
        assertFalse(Rings.durable(), "an application thread's ring without a file");
        assertFalse(assertTimeoutPreemptively(LIVENESS, () -> Rings.awaitFill(FOREVER_NANOS)),
                "volatile rings: the drainer must poll, not sleep");
        t.end();
        Collector c = new Collector();
        drainUntilEnded(c, t.id());
        assertEquals(List.of(1, 10, 2), c.of(t.id()).stream().map(Slot::kind).toList());
        assertTrue(Rings.durable(), "the ring without a file is released");
    }

    /** A thread that records, then waits until {@link #end}, so that its ring stays alive meanwhile. */
    private static final class Parked {
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;

        /** Starts the thread and returns once it has recorded. */
        Parked(String name, Runnable record) throws InterruptedException {
            CountDownLatch recorded = new CountDownLatch(1);
            thread = new Thread(() -> {
                record.run();
                recorded.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, name);
            thread.start();
            recorded.await();
        }

        long id() {
            return thread.getId();
        }

        /** Lets the thread end and waits for it. */
        void end() throws InterruptedException {
            release.countDown();
            thread.join();
        }
    }

    private static boolean hasRingFile(long tid) throws Exception {
        return findRingFile(tid) != null;
    }

    private static Path ringFileOf(long tid) throws Exception {
        Path f = findRingFile(tid);
        if (f == null) {
            throw new AssertionError("no ring file of thread " + tid + " in " + ringDir);
        }
        return f;
    }

    private static Path findRingFile(long tid) throws Exception {
        try (Stream<Path> files = Files.list(ringDir)) {
            for (Path f : files.toList()) {
                RingFile r = RingFile.read(f);
                if (r != null && r.threadId() == tid) {
                    return f;
                }
            }
        }
        return null;
    }

    private static void drainUntilEnded(Collector c, long tid) throws InterruptedException {
        ByteBuffer scratch = ByteBuffer.allocateDirect(4096);
        long deadline = System.nanoTime() + LIVENESS.toNanos();
        while (!c.hasEnded(tid) && System.nanoTime() < deadline) {
            Rings.drain(c, scratch);
            Thread.sleep(1);
        }
        assertTrue(c.hasEnded(tid), "thread " + tid + " never ended");
    }

    @AfterAll
    static void removingTheFilesEmptiesTheDirectory() throws Exception {
        Rings.removeRingFiles();
        try (Stream<Path> files = Files.list(ringDir)) {
            assertEquals(List.of(), files.toList());
        }
        assertFalse(Rings.durable(), "no ring files any more");
    }
}
