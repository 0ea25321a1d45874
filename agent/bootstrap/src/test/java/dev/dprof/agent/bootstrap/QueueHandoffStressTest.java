package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * Several producers and consumers through real queues, calling the side table exactly where the
 * woven advice does, with poison pills (one reference put over and over) and {@code drainTo} mixed
 * in: every key a take records is its own put's (a pill's, one of its puts' while it was the only
 * copy in flight), never another's, and no key is taken twice; and every back-pressure key a
 * blocked put records is the take of the head that left while the queue was full, before that put
 * inserted. Nothing here depends on timing: the checks hold for every interleaving.
 */
class QueueHandoffStressTest {
    private static final int PRODUCERS = 3;
    private static final int CONSUMERS = 2;
    private static final int PUTS = 20_000;

    /** The put key of each element, written before the element is inserted. */
    private final Map<Object, Long> putKeys = new ConcurrentHashMap<>();
    /** Every key a take recorded, with the element it returned. */
    private final Map<Long, Object> takenKeys = new ConcurrentHashMap<>();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final AtomicInteger recorded = new AtomicInteger();
    private final AtomicInteger taken = new AtomicInteger();

    private void fail(String why) {
        failure.compareAndSet(null, why);
    }

    @Test
    void everyRecordedTakeCarriesItsOwnPutsKey() throws Exception {
        ArrayBlockingQueue<Object> queue = new ArrayBlockingQueue<>(64);
        QueueHandoffs.constructed(queue);
        Object pill = new Object();
        CountDownLatch producersDone = new CountDownLatch(PRODUCERS);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int producer = p;
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < PUTS; i++) {
                        Object e = i % 50 == producer ? pill : new Object();
                        long token = QueueHandoffs.beforePut(queue, e);
                        if (token > 0) {
                            putKeys.put(e == pill ? token : e, token); // a pill's keys by themselves
                        }
                        queue.put(e);
                        QueueHandoffs.afterPut(queue, e, token, true);
                    }
                } catch (InterruptedException ex) {
                    fail("interrupted");
                } finally {
                    producersDone.countDown();
                }
            }));
        }
        for (int c = 0; c < CONSUMERS; c++) {
            threads.add(new Thread(() -> {
                try {
                    while (producersDone.getCount() > 0 || !queue.isEmpty()) {
                        int token = QueueHandoffs.beforeTake(queue);
                        Object e = queue.poll(1, TimeUnit.MILLISECONDS);
                        check(e, QueueHandoffs.afterTake(queue, e, token), pill);
                    }
                } catch (InterruptedException ex) {
                    fail("interrupted");
                }
            }));
        }
        threads.add(new Thread(() -> {
            List<Object> drained = new ArrayList<>();
            while (producersDone.getCount() > 0) {
                QueueHandoffs.beforeOtherRemoval();
                queue.drainTo(drained, 3);
                QueueHandoffs.afterOtherRemoval();
                QueueHandoffs.afterBulkRemoval(queue);
                drained.clear();
                Thread.yield();
            }
        }));
        runAll(threads);
        assertEquals(null, failure.get());
        assertTrue(taken.get() > PUTS, "takes: " + taken.get());
        assertTrue(recorded.get() > taken.get() / 2, "recorded " + recorded.get() + " of " + taken.get() + " takes");
    }

    private void check(Object e, long key, Object pill) {
        if (e == null) {
            return;
        }
        taken.incrementAndGet();
        if (key == 0) {
            return;
        }
        recorded.incrementAndGet();
        if (e == pill) {
            if (!putKeys.containsKey(key)) {
                fail("a poison pill's take recorded key " + key + ", which none of its puts had");
            }
        } else if (!Long.valueOf(key).equals(putKeys.get(e))) {
            fail("take recorded key " + key + ", its put " + putKeys.get(e));
        }
        if (takenKeys.put(key, e) != null) {
            fail("key " + key + " taken twice");
        }
    }

    private static void runAll(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join(120_000);
            assertFalse(t.isAlive(), "stuck: " + t);
        }
    }

    /**
     * A bounded queue with one lock, logging every insert and removal in the lock's order, with
     * the size before it: what a blocked put's back-pressure key can be checked against.
     */
    private static final class LoggedQueue extends AbstractQueue<Object> implements BlockingQueue<Object> {
        final ReentrantLock lock = new ReentrantLock();
        private final Condition notFull = lock.newCondition();
        private final ArrayDeque<Object> items = new ArrayDeque<>();
        private final int capacity;
        /** In the lock's order: the element, whether inserted (else removed), the size before. */
        final List<Object[]> log = new ArrayList<>();

        LoggedQueue(int capacity) {
            this.capacity = capacity;
        }

        @Override
        public void put(Object e) throws InterruptedException {
            lock.lockInterruptibly();
            try {
                while (items.size() == capacity) {
                    notFull.await();
                }
                log.add(new Object[] {e, true, items.size()});
                items.addLast(e);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public Object poll() {
            lock.lock();
            try {
                Object e = items.pollFirst();
                if (e != null) {
                    log.add(new Object[] {e, false, items.size() + 1});
                    notFull.signal();
                }
                return e;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int drainTo(Collection<? super Object> c, int max) {
            lock.lock();
            try {
                int n = 0;
                for (; n < max && !items.isEmpty(); n++) {
                    log.add(new Object[] {items.peekFirst(), false, items.size()});
                    c.add(items.pollFirst());
                    notFull.signal();
                }
                return n;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public Object peek() {
            lock.lock();
            try {
                return items.peekFirst();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int remainingCapacity() {
            lock.lock();
            try {
                return capacity - items.size();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int size() {
            lock.lock();
            try {
                return items.size();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public Object[] toArray() {
            lock.lock();
            try {
                return items.toArray();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public Iterator<Object> iterator() {
            return List.of(toArray()).iterator();
        }

        @Override
        public boolean offer(Object e) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean offer(Object e, long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object take() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object poll(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int drainTo(Collection<? super Object> c) {
            return drainTo(c, Integer.MAX_VALUE);
        }
    }

    @Test
    void everyBackPressureKeyIsTheTakeOfTheHeadThatLeftWhileTheQueueWasFull() throws Exception {
        int capacity = 4;
        LoggedQueue queue = new LoggedQueue(capacity);
        QueueHandoffs.constructed(queue);
        Map<Object, Long> pressureKeys = new ConcurrentHashMap<>();
        CountDownLatch producersDone = new CountDownLatch(PRODUCERS);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < PUTS / 4; i++) {
                        Object e = new Object();
                        long token = QueueHandoffs.beforePut(queue, e);
                        if (token > 0) {
                            putKeys.put(e, token);
                        }
                        long removals = QueueHandoffs.otherRemovalsQuiet();
                        int count = queue.size();
                        long pressure = QueueHandoffs.pressure(queue, count, queue.lock, removals);
                        queue.put(e);
                        QueueHandoffs.afterPut(queue, e, token, true);
                        long key = QueueHandoffs.afterPressure(queue, pressure, removals, true);
                        if (key != 0) {
                            pressureKeys.put(e, key);
                        }
                    }
                } catch (InterruptedException ex) {
                    fail("interrupted");
                } finally {
                    producersDone.countDown();
                }
            }));
        }
        threads.add(new Thread(() -> {
            int round = 0;
            while (producersDone.getCount() > 0 || !queue.isEmpty()) {
                if (++round % 97 == 0) {
                    QueueHandoffs.beforeOtherRemoval(); // drainTo frees space without a take
                    queue.drainTo(new ArrayList<>(), 2);
                    QueueHandoffs.afterOtherRemoval();
                    QueueHandoffs.afterBulkRemoval(queue);
                    continue;
                }
                int token = QueueHandoffs.beforeTake(queue);
                Object e = queue.poll();
                if (e == null) {
                    Thread.yield();
                }
                long key = QueueHandoffs.afterTake(queue, e, token);
                if (key != 0) {
                    takenKeys.put(key, e);
                }
            }
        }));
        runAll(threads);
        assertEquals(null, failure.get());
        Map<Object, Integer> insertAt = new java.util.IdentityHashMap<>();
        Map<Object, Integer> removeAt = new java.util.IdentityHashMap<>();
        Map<Object, Integer> sizeBeforeRemoval = new java.util.IdentityHashMap<>();
        for (int i = 0; i < queue.log.size(); i++) {
            Object[] entry = queue.log.get(i);
            if ((Boolean) entry[1]) {
                insertAt.put(entry[0], i);
            } else {
                removeAt.put(entry[0], i);
                sizeBeforeRemoval.put(entry[0], (Integer) entry[2]);
            }
        }
        for (Map.Entry<Object, Long> p : pressureKeys.entrySet()) {
            Object head = takenKeys.get(p.getValue());
            assertNotNull(head, "a back-pressure key no take recorded: " + p.getValue());
            assertEquals(p.getValue(), putKeys.get(head), "the take's own key");
            assertTrue(removeAt.get(head) < insertAt.get(p.getKey()), "the put inserted before the take it waited for");
            assertEquals(capacity, sizeBeforeRemoval.get(head), "the take did not leave a full queue");
        }
        assertTrue(pressureKeys.size() > 0, "no put recorded back-pressure");
    }
}
