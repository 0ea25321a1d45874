package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventCodes;
import dev.dprof.format.HandoffRegions;
import dev.dprof.testapp.Waiter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the advice woven into {@code LockSupport} records ({@link Waits}), called as the advice
 * does, on threads of their own whose events are drained afterwards (Java rings: this JVM never
 * initializes the native ones). A long park that something woke records one take of channel
 * {@code WAITED}, keyed by its length, in the region of the application's frame that waited
 * ({@link Waiter}); a short one, one that ran its whole timeout or its deadline, one with no frame
 * outside the JDK, and one of the agent's own threads record nothing. Lengths are given, or are
 * starts taken in the past: no test waits for time to pass.
 */
class WaitsTest {
    private static final Map<String, Integer> REGIONS = new ConcurrentHashMap<>();
    private static final long MS = 1_000_000;

    @BeforeAll
    static void registry() {
        HandoffSites.install((name, location) -> REGIONS.computeIfAbsent(name, n -> 100 + REGIONS.size()));
    }

    /** The events {@code body} recorded on a thread of its own. */
    private static List<Slot> recorded(Runnable body, boolean agentsOwn) throws InterruptedException {
        Thread t = new Thread(body, "waiter");
        if (agentsOwn) {
            AgentThreads.own(List.of(t));
        }
        t.start();
        t.join();
        Collector c = new Collector();
        Rings.drain(c, ByteBuffer.allocateDirect(Rings.SLOT_BYTES * 64));
        List<Slot> waits = new ArrayList<>();
        for (Slot s : c.of(t.getId())) {
            if (s.kind() == EventCodes.HANDOFF_TAKE) {
                waits.add(s);
            }
        }
        return waits;
    }

    private static List<Slot> inTheApplication(Runnable park) throws InterruptedException {
        return recorded(() -> Waiter.waitHere(park), false);
    }

    private static int site() {
        return REGIONS.get(HandoffRegions.waitSiteName(Waiter.class.getName() + ".waitHere:" + Waiter.LINE));
    }

    @Test
    void aLongParkRecordsItsLengthWhereTheApplicationWaited() throws Exception {
        List<Slot> waits = inTheApplication(() -> Waits.waited(3 * MS, false));
        assertEquals(1, waits.size(), waits.toString());
        assertEquals(HandoffRegions.WAITED, waits.get(0).a());
        assertEquals(3 * MS, waits.get(0).b());
        assertEquals(site(), waits.get(0).region());
    }

    @Test
    void theAdviceEntriesRecordAParkThatBeganLongAgo() throws Exception {
        long longAgo = System.nanoTime() - 50 * MS;
        List<Slot> waits = inTheApplication(() -> {
            Waits.afterPark(longAgo);
            Waits.afterParkNanos(longAgo, Long.MAX_VALUE);
            Waits.afterParkUntil(longAgo, System.currentTimeMillis() + 3_600_000);
        });
        assertEquals(3, waits.size(), waits.toString());
        for (Slot w : waits) {
            assertTrue(w.b() >= 50 * MS, w.toString());
            assertEquals(site(), w.region());
        }
    }

    @Test
    void aShortParkRecordsNothing() throws Exception {
        assertEquals(List.of(), inTheApplication(() -> Waits.waited(Waits.THRESHOLD_NANOS - 1, false)));
        assertEquals(1, inTheApplication(() -> Waits.waited(Waits.THRESHOLD_NANOS, false)).size(), "the threshold itself");
    }

    @Test
    void aParkThatRanItsWholeTimeoutRecordsNothing() throws Exception {
        long longAgo = System.nanoTime() - 50 * MS;
        assertEquals(List.of(), inTheApplication(() -> {
            Waits.waited(5 * MS, true);
            Waits.afterParkNanos(longAgo, 10 * MS);
            Waits.afterParkUntil(longAgo, System.currentTimeMillis() - 1);
        }));
    }

    @Test
    void aParkWithNoFrameOutsideTheJdkRecordsNothing() throws Exception {
        // This class is in the probes' package, which the walk skips like the JDK: no application frame.
        assertEquals(List.of(), recorded(() -> Waits.waited(3 * MS, false), false));
    }

    @Test
    void theAgentsOwnThreadsRecordNothing() throws Exception {
        assertEquals(List.of(), recorded(() -> Waiter.waitHere(() -> Waits.waited(3 * MS, false)), true));
    }
}
