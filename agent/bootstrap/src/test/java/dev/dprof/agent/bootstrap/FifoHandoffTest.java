package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A FIFO queue's position keys driven against a model: a list of (element, key its put recorded)
 * standing for the queue's contents, changed by every operation the leaves report — insertions at
 * either end, takes at either end, removals from the middle at a known or unknown position,
 * {@code drainTo} and {@code clear} windows with takes inside, bulk removals. Whatever the mix, a
 * take that records a key records its own element's put key, and no key is taken twice; and the
 * key a blocked put reads for the head is the one the next take records.
 */
class FifoHandoffTest {
    /** One element in the model queue: the key its put recorded. */
    private record Element(long key) {
    }

    private final List<Element> queue = new ArrayList<>();
    private final Set<Long> taken = new HashSet<>();
    private final FifoHandoff f = new FifoHandoff(16, "TestQueue", "FifoHandoffTest:1", true, 8, FifoHandoff.ARRAY,
            null, null);
    private int takes;
    private int recorded;

    private void putLast() {
        queue.add(new Element(f.putLast()));
    }

    private void putFirst() {
        queue.add(0, new Element(f.putFirst()));
    }

    private void takeFirst(boolean inWindow) {
        if (queue.isEmpty()) {
            return;
        }
        long head = inWindow ? 0 : f.headKey();
        checkTake(queue.remove(0), f.takeFirst(), inWindow);
        if (head != 0) {
            assertEquals(head, lastKey, "the head's key a blocked put read is the one its take records");
        }
    }

    private void takeLast(boolean inWindow) {
        if (!queue.isEmpty()) {
            checkTake(queue.remove(queue.size() - 1), f.takeLast(), inWindow);
        }
    }

    private long lastKey;

    private void checkTake(Element e, long key, boolean inWindow) {
        takes++;
        lastKey = key;
        if (key == 0) {
            return;
        }
        assertFalse(inWindow, "a take inside a window records nothing");
        assertEquals(e.key(), key, "a take recorded another element's key");
        assertTrue(taken.add(key), "key " + key + " taken twice");
        recorded++;
    }

    private void run(long seed, boolean deque) {
        Random r = new Random(seed);
        f.forgetAll(0); // a new queue, empty: rebuilt by its first use
        for (int step = 0; step < 20_000; step++) {
            int op = r.nextInt(100);
            if (op < 40) {
                if (deque && r.nextInt(4) == 0) {
                    putFirst();
                } else {
                    putLast();
                }
            } else if (op < 78) {
                if (deque && r.nextInt(4) == 0) {
                    takeLast(false);
                } else {
                    takeFirst(false);
                }
            } else if (op < 88) {
                if (!queue.isEmpty()) {
                    int at = r.nextInt(queue.size());
                    f.removeAt(at, queue.size()); // remove(Object), an iterator's remove
                    queue.remove(at);
                }
            } else if (op < 90) {
                if (!queue.isEmpty()) {
                    int size = queue.size();
                    queue.remove(r.nextInt(size));
                    f.removeAt(-1, size); // a node too deep to walk to: everything forgotten
                }
            } else if (op < 95) {
                drain(r);
            } else if (op < 97) {
                clear(r);
            } else if (op < 98) {
                queue.removeIf(e -> r.nextBoolean()); // removeIf: which ones the leaf does not say
                f.forgetAll(queue.size());
            }
        }
        while (!queue.isEmpty()) {
            takeFirst(false);
        }
        assertEquals(0, f.accounted(), "the take side accounts for the empty queue");
        assertTrue(recorded > takes / 2, "recorded " + recorded + " of " + takes + " takes");
    }

    /** A {@code drainTo(c, n)} window, with takes before and after the drain inside it. */
    private void drain(Random r) {
        f.openWindow();
        for (int i = r.nextInt(3); i > 0; i--) {
            takeFirst(true);
            putLast();
        }
        int n = Math.min(queue.size(), r.nextInt(4));
        for (int i = 0; i < n; i++) {
            queue.remove(0);
        }
        for (int i = r.nextInt(3); i > 0; i--) {
            takeFirst(true);
        }
        f.dropFirst(n);
        f.closeWindow();
    }

    /** A {@code clear} window, with puts and takes inside it; rebuilt from the count at its end. */
    private void clear(Random r) {
        f.openWindow();
        putLast();
        takeFirst(true);
        queue.clear();
        for (int i = r.nextInt(3); i > 0; i--) {
            putLast();
        }
        f.forgetAll(queue.size());
        f.closeWindow();
    }

    @Test
    void aQueueTakesOnlyItsOwnPutsKeys() {
        for (long seed = 1; seed <= 20; seed++) {
            run(seed, false);
        }
    }

    @Test
    void aDequeTakesOnlyItsOwnPutsKeysAtEitherEnd() {
        for (long seed = 1; seed <= 20; seed++) {
            run(seed, true);
        }
    }

    @Test
    void inSteadyStateEveryTakeRecordsTheNextInsertion() {
        f.forgetAll(0);
        for (int i = 1; i <= 1000; i++) {
            assertEquals(i, f.putLast());
            assertEquals(i, f.headKey());
            assertEquals(i, f.takeFirst());
        }
        assertEquals(0, f.runs(), "nothing but the open run");
    }

    @Test
    void aPoisonPillPutTwiceGivesTwoEdges() {
        f.forgetAll(0);
        long first = f.putLast(); // the pill
        long second = f.putLast(); // the same reference again, still in flight
        assertTrue(first != second);
        assertEquals(first, f.takeFirst());
        assertEquals(second, f.takeFirst());
    }

    @Test
    void elementsPresentBeforeTheFirstRebuildAreNeverStamped() {
        long before = HandoffStats.unmatchedTakes();
        f.forgetAll(2); // two elements were in the queue when it was first seen
        long k = f.putLast();
        assertEquals(0, f.headKey());
        assertEquals(0, f.takeFirst());
        assertEquals(0, f.takeFirst());
        assertEquals(k, f.takeFirst());
        assertEquals(before + 2, HandoffStats.unmatchedTakes());
    }

    @Test
    void aRemovalFromTheMiddleSkipsItsNumberOnly() {
        f.forgetAll(0);
        long a = f.putLast();
        f.putLast();
        long c = f.putLast();
        f.removeAt(1, 3);
        assertEquals(a, f.takeFirst());
        assertEquals(c, f.takeFirst());
        assertEquals(0, f.runs(), "the run list empties with the queue");
    }
}
