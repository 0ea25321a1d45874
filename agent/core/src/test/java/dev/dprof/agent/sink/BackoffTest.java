package dev.dprof.agent.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static final long MS = 1_000_000L;

    @Test
    void sleepsAfterEveryPassUntilASleepIsRefused() {
        Backoff b = new Backoff(5 * MS);
        assertTrue(b.maySleep(), "before the first pass");
        for (int i = 0; i < 10; i++) {
            b.pass(true);
            assertTrue(b.maySleep(), "a burst's pass is followed by a sleep until the next event");
            assertEquals(Backoff.FIRST_SLEEP_NANOS, b.sleepNanos());
        }
        assertEquals(5 * MS, b.intervalNanos());
    }

    @Test
    void aRefusedSleepPollsUntilAPassFindsNothing() {
        Backoff b = new Backoff(5 * MS);
        b.pass(true);
        b.sleepRefused();
        for (int i = 0; i < 10; i++) {
            assertFalse(b.maySleep(), "events stream in: poll every interval, no membarrier");
            b.pass(true);
        }
        b.pass(false);
        assertTrue(b.maySleep(), "the stream ended");
    }

    @Test
    void theSleepDoublesWithEmptyPassesUpToTheCap() {
        Backoff b = new Backoff(5 * MS);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            waits.add(b.sleepNanos() / MS);
            b.pass(false);
        }
        assertEquals(List.of(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L, 1000L), waits);
        b.pass(true);
        assertEquals(Backoff.FIRST_SLEEP_NANOS, b.sleepNanos(), "one eventful pass resets the growth");
    }

    @Test
    void neverOverflowsAndNeverSleepsLessThanTheInterval() {
        Backoff b = new Backoff(3 * MS);
        for (int i = 0; i < 10_000; i++) {
            b.pass(false);
        }
        assertEquals(Backoff.MAX_SLEEP_NANOS, b.sleepNanos());
        Backoff slow = new Backoff(2 * Backoff.MAX_SLEEP_NANOS);
        for (int i = 0; i < 10; i++) {
            slow.pass(false);
        }
        assertEquals(2 * Backoff.MAX_SLEEP_NANOS, slow.sleepNanos());
        assertThrows(IllegalArgumentException.class, () -> new Backoff(0));
    }
}
