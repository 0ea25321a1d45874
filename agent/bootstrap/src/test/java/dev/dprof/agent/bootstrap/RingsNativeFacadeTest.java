package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The public face as an agent uses it: init first, then Rings. Runs in a JVM of its own. */
class RingsNativeFacadeTest {
    static String line;

    @BeforeAll
    static void init() {
        line = RingConfig.init(true, RingConfig.CLOCK_RDTSC, 1024);
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
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch recorded = new CountDownLatch(1);
        Thread alive = new Thread(() -> {
            Rings.record(EventCodes.header(10, 7));
            recorded.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "still-running");
        alive.start();
        Thread ended = new Thread(() -> Rings.record(EventCodes.header(10, 8)), "just-ended");
        ended.start();
        ended.join();
        recorded.await();

        Collector c = new Collector();
        Rings.drainLast(c, ByteBuffer.allocateDirect(4096));
        release.countDown();
        alive.join();

        assertEquals(List.of(), c.violations);
        assertEquals(List.of(1, 10, 2), c.of(ended.getId()).stream().map(Slot::kind).toList());
        assertTrue(c.hasEnded(ended.getId()));
        assertEquals(List.of(1, 10), c.of(alive.getId()).stream().map(Slot::kind).toList());
        assertFalse(c.hasEnded(alive.getId()), "a live thread has not ended");
    }

    /** Longer than any test may take: a sleep that ends only by its timeout fails the test. */
    private static final long FOREVER_NANOS = 600_000_000_000L;
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    @Test
    void noSleepWhileEventsArePending() {
        Rings.record(EventCodes.header(10, 5));
        assertFalse(assertTimeoutPreemptively(LIVENESS, () -> Rings.awaitEvent(FOREVER_NANOS)),
                "a pending event: the consumer must drain, not sleep");
    }

    @Test
    void aWakeBeforeTheSleepIsNotLost() {
        Rings.wakeConsumer();
        assertFalse(assertTimeoutPreemptively(LIVENESS, () -> Rings.awaitEvent(FOREVER_NANOS)));
    }

    /**
     * Once every ring is drained the consumer sleeps; the next event, recorded by another thread
     * that may come before or after the sleep began, ends it.
     */
    @Test
    void theNextEventEndsTheSleep() throws Exception {
        Collector c = new Collector();
        ByteBuffer scratch = ByteBuffer.allocateDirect(4096);
        Thread late = new Thread(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Rings.record(EventCodes.header(10, 6));
        }, "doorbell");
        assertTimeoutPreemptively(LIVENESS, () -> {
            Rings.drain(c, scratch);
            late.start();
            // Returns at once while something is pending (e.g. an ended thread's ring), so drain again.
            while (!Rings.awaitEvent(FOREVER_NANOS)) {
                Rings.drain(c, scratch);
                if (c.of(late.getId()).stream().anyMatch(e -> e.kind() == 10)) {
                    break;
                }
                Thread.sleep(1);
            }
            late.join();
            Rings.drain(c, scratch);
        }, "the event must end the sleep");
        assertEquals(List.of(1, 10), c.of(late.getId()).stream().map(Slot::kind).limit(2).toList());
    }
}
