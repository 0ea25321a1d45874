package dev.dprof.it.app;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A hand-over the agent cannot follow: {@code main} produces N items, {@value #PRODUCE_MS} ms each,
 * and hands each to a consumer thread through a deque guarded by a {@link ReentrantLock}; the
 * consumer waits for the next one on a {@link Condition} in {@link #awaitItem}, which the producer
 * signals in {@link #offer}. No queue, future or monitor of the JDK carries the items, so no edge
 * is recorded: the consumer's waits have no recorded sender. Prints the items' sum.
 */
public final class WaitApp {
    public static final int PRODUCE_MS = 3;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final ArrayDeque<Integer> items = new ArrayDeque<>();

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        WaitApp app = new WaitApp();
        long[] sum = new long[1];
        Thread consumer = new Thread(() -> {
            for (int i = 0; i < n; i++) {
                sum[0] += consume(app.awaitItem());
            }
        }, "consumer");
        consumer.start();
        for (int i = 1; i <= n; i++) {
            app.offer(produce(i));
        }
        consumer.join();
        System.out.println("sum " + sum[0]);
    }

    static int produce(int i) throws InterruptedException {
        Thread.sleep(PRODUCE_MS);
        return i;
    }

    static long consume(int item) {
        return item;
    }

    void offer(int item) {
        lock.lock();
        try {
            items.add(item);
            ready.signal();
        } finally {
            lock.unlock();
        }
    }

    int awaitItem() {
        lock.lock();
        try {
            while (items.isEmpty()) {
                ready.awaitUninterruptibly();
            }
            return items.poll();
        } finally {
            lock.unlock();
        }
    }
}
