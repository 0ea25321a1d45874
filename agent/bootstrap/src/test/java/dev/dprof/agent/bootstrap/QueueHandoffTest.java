package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A queue's side table driven by hand, with an {@link ArrayList} standing for the queue's contents:
 * keys, ambiguity, nesting, failed inserts, purges and their graves, takes that overlap a resync,
 * and that nothing is kept once elements are gone.
 */
class QueueHandoffTest {
    private final Thread me = Thread.currentThread();
    private final List<Object> queue = new ArrayList<>();
    private final QueueHandoff q = new QueueHandoff(16, "TestQueue", "QueueHandoffTest:1", true);

    private long put(Object e) {
        long seq = q.put(e, me);
        q.putDone(e, true);
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
    void aNestedPutOfTheSameElementRegistersOnce() {
        Object e = new Object();
        long outer = q.put(e, me);
        assertEquals(QueueHandoff.NESTED, q.put(e, me), "the delegate called by the outer put");
        q.putDone(e, true);
        assertEquals(outer, q.take(e, q.takeEpoch()));
    }

    @Test
    void aFailedInsertUnregisters() {
        Object e = new Object();
        q.put(e, me);
        q.putDone(e, false);
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
    void anInsertInProgressIsNeverPurged() {
        Object e = new Object();
        long k = q.put(e, me); // registered, not yet in the queue
        q.resync(queue);
        q.putDone(e, true);
        queue.add(e);
        assertEquals(k, take(e));
    }

    @Test
    void manyElementsThatLeaveWithoutATakeDoNotLeak() {
        for (int i = 0; i < 100_000; i++) {
            Object e = new Object();
            q.put(e, me);
            q.putDone(e, true);
            if (q.resyncDue()) {
                q.resync(queue); // the queue is always empty: every element left unseen
            }
        }
        assertTrue(q.inFlight() <= 2 * QueueHandoff.FIRST_RESYNC, "entries held: " + q.inFlight());
        assertTrue(q.capacity() <= 4 * QueueHandoff.FIRST_RESYNC, "table: " + q.capacity());
    }
}
