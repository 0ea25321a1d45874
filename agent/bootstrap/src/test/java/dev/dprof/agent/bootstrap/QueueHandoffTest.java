package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A queue's side table driven by hand, with an {@link ArrayList} standing for the queue's contents:
 * keys (unique over the stripes), ambiguity, nesting, failed inserts, purges and their graves, takes
 * that overlap a resync, what a rendezvous's back-pressure reads (the takes published), and that
 * nothing is kept once elements are gone.
 */
class QueueHandoffTest {
    private final List<Object> queue = new ArrayList<>();
    private final QueueHandoff q = new QueueHandoff(16, "TestQueue", "QueueHandoffTest:1", true, true);

    private long put(Object e) {
        long seq = q.put(e);
        queue.add(e);
        return seq;
    }

    private long take(Object e) {
        int epoch = q.takeEpoch();
        queue.remove(e);
        return q.take(e, epoch);
    }

    @Test
    void aTakeGetsItsPutsKey() {
        Object a = new Object();
        Object b = new Object();
        long ka = put(a);
        long kb = put(b);
        assertTrue(ka > 0 && kb > 0 && ka != kb);
        assertEquals(kb, take(b));
        assertEquals(ka, take(a));
        assertEquals(0, q.inFlight());
    }

    @Test
    void anElementInFlightTwiceDropsBothEdges() {
        Object pill = new Object();
        assertTrue(put(pill) > 0);
        assertEquals(QueueHandoff.AMBIGUOUS, put(pill));
        assertEquals(0, take(pill));
        assertEquals(0, take(pill));
        assertEquals(0, q.inFlight());
        assertTrue(put(pill) > 0, "once both copies are gone the reference is fresh again");
    }

    @Test
    void aPutNestedInAPutOfTheSameElementLosesTheEdgeNeverPairsWrongly() {
        Object e = new Object();
        assertTrue(q.put(e) > 0);
        assertEquals(QueueHandoff.AMBIGUOUS, q.put(e), "the delegate called by the outer put: a second copy");
        q.putFailed(e); // the outer put's bookkeeping is all at its entry; the inner one inserted nothing
        assertEquals(0, q.take(e, q.takeEpoch()));
        assertEquals(0, q.inFlight());
    }

    @Test
    void aFailedInsertUnregisters() {
        Object e = new Object();
        q.put(e);
        q.putFailed(e);
        assertEquals(0, q.inFlight());
        assertEquals(0, q.take(e, q.takeEpoch()), "a take of an element never inserted finds no put");
    }

    @Test
    void elementsPresentAtFirstSightAreNeverStamped() {
        Object old = new Object();
        q.present(new Object[] {old});
        queue.add(old);
        assertEquals(QueueHandoff.AMBIGUOUS, put(old), "a second copy of an unregistered element");
        assertEquals(0, take(old));
        assertEquals(0, take(old));
    }

    @Test
    void aResyncPurgesWhatLeftAndKeepsAGraveForOneRound() {
        Object stays = new Object();
        Object drained = new Object();
        long k = put(stays);
        put(drained);
        queue.remove(drained); // left by drainTo: no take
        q.resync(queue);
        assertEquals(2, q.inFlight(), "the drained element is a grave until the next resync");
        assertEquals(QueueHandoff.AMBIGUOUS, put(drained), "its reference put again while a grave: no edge");
        assertEquals(0, take(drained));
        assertEquals(k, take(stays));
        q.resync(queue);
        assertEquals(0, q.inFlight(), "nothing kept once the elements are gone");
    }

    @Test
    void aTakeThatOverlapsAResyncRecordsNothing() {
        Object e = new Object();
        put(e);
        int epoch = q.takeEpoch();
        queue.remove(e); // the take returned e ...
        q.resync(queue); // ... a resync purged it ...
        assertEquals(QueueHandoff.AMBIGUOUS, put(e), "... and e is put again before the take's end runs");
        assertEquals(0, q.take(e, epoch), "the late take must not pair with the new put");
    }

    @Test
    void aPutBlockedAcrossAResyncLosesItsEdgeNeverPairsWrongly() {
        Object e = new Object();
        assertTrue(q.put(e) > 0); // registered at its entry, still blocked: not in the queue
        q.resync(queue);
        queue.add(e);
        assertEquals(QueueHandoff.AMBIGUOUS, put(e), "its reference put again while a grave");
        assertEquals(0, take(e));
        assertEquals(0, take(e));
    }

    @Test
    void keysAreUniqueOverTheStripes() {
        Map<Long, Object> keys = new HashMap<>();
        List<Object> elements = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            Object e = new Object();
            elements.add(e);
            long k = put(e);
            assertTrue(k > 0);
            assertNull(keys.put(k, e), "key " + k + " given twice");
        }
        for (Object e : elements) {
            long k = take(e);
            assertSame(e, keys.get(k));
        }
        assertEquals(0, q.inFlight());
    }

    @Test
    void aTakeIsVisibleToWaitingPutsOnlyOnceRecordedAndUntilOverwritten() {
        Object e = new Object();
        long k = put(e);
        assertFalse(q.wasTaken(k), "not taken yet");
        assertEquals(k, take(e));
        assertFalse(q.wasTaken(k), "taken, but its event is published only after it is stamped");
        q.took(k);
        assertTrue(q.wasTaken(k));
        q.took(k + QueueHandoff.TOOK); // a later key in the same slot
        assertFalse(q.wasTaken(k), "overwritten: unknown, so nothing is recorded");
        assertFalse(q.wasTaken(0));
        QueueHandoff unbounded = new QueueHandoff(17, "TestQueue", "QueueHandoffTest:2", true);
        unbounded.took(k);
        assertFalse(unbounded.wasTaken(k), "no put waits for a take of a queue that is no rendezvous: nothing kept");
    }

    @Test
    void manyElementsThatLeaveWithoutATakeDoNotLeak() {
        for (int i = 0; i < 100_000; i++) {
            Object e = new Object();
            if (q.resyncDue(e)) {
                q.resync(queue); // the queue is always empty: every element left unseen
            }
            q.put(e);
        }
        int stripes = QueueHandoff.STRIPES;
        assertTrue(q.inFlight() <= 2 * stripes * QueueHandoff.FIRST_RESYNC, "entries held: " + q.inFlight());
        assertTrue(q.capacity() <= 4 * stripes * Math.max(QueueHandoff.FIRST_RESYNC, IdentitySlots.MIN_CAPACITY),
                "table: " + q.capacity());
    }
}
