package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A monitor's side table driven by hand: a wait takes the latest notification since it began, or
 * nothing; notifications nobody waits for are not stamped; keys are unique; an entry leaves with
 * its last waiter.
 */
class MonitorHandoffsTest {
    private static final int SITE = 0;

    @Test
    void aNotificationNobodyWaitsForIsNotStamped() {
        assertEquals(0, MonitorHandoffs.stampNotification(new Object(), SITE));
    }

    @Test
    void aWaitTakesTheNotificationThatCameWhileItWaited() {
        Object m = new Object();
        long g = MonitorHandoffs.register(m);
        long key = MonitorHandoffs.stampNotification(m, SITE);
        assertTrue(key != 0);
        assertEquals(key, MonitorHandoffs.unregister(m, g, SITE));
    }

    @Test
    void aWaitThatEndedWithoutANotificationTakesNothing() {
        Object m = new Object();
        long g = MonitorHandoffs.register(m);
        assertEquals(0, MonitorHandoffs.unregister(m, g, SITE), "its timeout, an interrupt, a spurious wake-up");
    }

    @Test
    void aWaitTakesTheLatestOfSeveralNotifications() {
        Object m = new Object();
        long g = MonitorHandoffs.register(m);
        long first = MonitorHandoffs.stampNotification(m, SITE);
        long second = MonitorHandoffs.stampNotification(m, SITE);
        assertNotEquals(first, second);
        assertEquals(second, MonitorHandoffs.unregister(m, g, SITE));
    }

    @Test
    void aWaitThatBeganAfterANotificationDoesNotTakeIt() {
        Object m = new Object();
        long early = MonitorHandoffs.register(m);
        long k1 = MonitorHandoffs.stampNotification(m, SITE);
        long late = MonitorHandoffs.register(m);
        assertEquals(0, MonitorHandoffs.unregister(m, late, SITE), "k1 came before the late wait began");
        long k2 = MonitorHandoffs.stampNotification(m, SITE);
        long again = MonitorHandoffs.register(m);
        assertEquals(k2, MonitorHandoffs.unregister(m, early, SITE));
        assertEquals(0, MonitorHandoffs.unregister(m, again, SITE));
        assertNotEquals(k1, k2);
    }

    @Test
    void theEntryLeavesWithItsLastWaiter() {
        Object m = new Object();
        long g = MonitorHandoffs.register(m);
        MonitorHandoffs.unregister(m, g, SITE);
        assertEquals(0, MonitorHandoffs.stampNotification(m, SITE), "nobody waits any more");
        long fresh = MonitorHandoffs.register(m);
        assertEquals(0, MonitorHandoffs.unregister(m, fresh, SITE), "a new entry starts with no notification");
    }

    @Test
    void keysAreUniqueOverMonitors() {
        Set<Long> keys = new HashSet<>();
        Object[] monitors = new Object[200];
        long[] generations = new long[monitors.length];
        for (int i = 0; i < monitors.length; i++) {
            monitors[i] = new Object();
            generations[i] = MonitorHandoffs.register(monitors[i]);
        }
        for (int round = 0; round < 5; round++) {
            for (Object m : monitors) {
                assertTrue(keys.add(MonitorHandoffs.stampNotification(m, SITE)));
            }
        }
        for (int i = 0; i < monitors.length; i++) {
            assertTrue(keys.contains(MonitorHandoffs.unregister(monitors[i], generations[i], SITE)));
        }
    }
}
