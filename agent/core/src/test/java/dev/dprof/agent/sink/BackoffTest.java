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
    void pollsEveryIntervalWhileEventsCome() {
        Backoff b = new Backoff(5 * MS);
        assertFalse(b.idle(), "before the first pass");
        assertEquals(5 * MS, b.waitNanos());
        for (int i = 0; i < 10; i++) {
            b.pass(true);
            assertFalse(b.idle());
            assertEquals(5 * MS, b.waitNanos(), "a busy drainer never waits longer than the interval");
        }
    }

    @Test
    void sleepsAfterOneEmptyPassDoublingUpToTheCap() {
        Backoff b = new Backoff(5 * MS);
        List<Boolean> idle = new ArrayList<>();
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 14; i++) {
            b.pass(false);
            idle.add(b.idle());
            waits.add(b.waitNanos() / MS);
        }
        assertEquals(List.of(true, true, true, true, true, true, true, true, true, true, true, true, true, true), idle);
        assertEquals(List.of(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L, 1000L, 1000L, 1000L, 1000L, 1000L, 1000L,
                1000L), waits);
    }

    @Test
    void oneEventfulPassResetsTheBackoff() {
        Backoff b = new Backoff(2 * MS);
        for (int i = 0; i < 40; i++) {
            b.pass(false);
        }
        assertEquals(Backoff.MAX_SLEEP_NANOS, b.waitNanos());
        b.pass(true);
        assertFalse(b.idle());
        assertEquals(2 * MS, b.waitNanos());
        for (int i = 0; i < Backoff.POLLS_BEFORE_SLEEP; i++) {
            assertFalse(b.idle(), "polls again after an eventful pass");
            b.pass(false);
        }
        assertTrue(b.idle());
        assertEquals(Backoff.FIRST_SLEEP_NANOS, b.waitNanos(), "the first idle sleep");
    }

    @Test
    void neverOverflowsAndNeverWaitsLessThanTheInterval() {
        Backoff b = new Backoff(3 * MS);
        for (int i = 0; i < 10_000; i++) {
            b.pass(false);
        }
        assertEquals(Backoff.MAX_SLEEP_NANOS, b.waitNanos());
        Backoff slow = new Backoff(2 * Backoff.MAX_SLEEP_NANOS);
        for (int i = 0; i < 10; i++) {
            slow.pass(false);
        }
        assertEquals(2 * Backoff.MAX_SLEEP_NANOS, slow.waitNanos());
        assertThrows(IllegalArgumentException.class, () -> new Backoff(0));
    }
}
