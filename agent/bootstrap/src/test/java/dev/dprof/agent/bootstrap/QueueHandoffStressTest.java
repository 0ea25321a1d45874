package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Several producers and consumers through a real queue found again by reference
 * ({@code LinkedTransferQueue}), calling the side table exactly where the woven advice does, with
 * poison pills (one reference put over and over) and {@code drainTo} mixed in: every key a take
 * records is its own put's (a pill's, one of its puts' while it was the only copy in flight), never
 * another's, and no key is taken twice. Nothing here depends on timing: the checks hold for every
 * interleaving. (The FIFO queues, keyed by position in advice woven into their private methods,
 * are checked with the agent by {@code FifoHandoffIT}.)
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
        BlockingQueue<Object> queue = new LinkedTransferQueue<>();
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
}
