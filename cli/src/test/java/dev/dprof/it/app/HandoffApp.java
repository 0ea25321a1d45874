package dev.dprof.it.app;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code HandoffApp N}: hands {@code N} distinct items from a producer to a consumer thread through
 * each queue the agent records without configuration, then a producer blocked on a full queue before
 * each of its puts (back-pressure), a poison pill put twice while in flight,
 * a {@code drainTo}, a thread pool, a scheduled pool, fork/join, a {@code CompletableFuture} chain,
 * {@code Thread.start}/{@code join}, and a {@code get} and a {@code join} that wait (their completer
 * waits until the main thread is parked in them). Each queue
 * is made in a method of its own, which is its site. Prints one checksum line per scenario:
 * the output is the same with and without the agent.
 */
public final class HandoffApp {
    /** Elements with an order and no delay, so that every queue can carry them. */
    static final class Item implements Delayed {
        final int value;

        Item(int value) {
            this.value = value;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed o) {
            return Integer.compare(value, ((Item) o).value);
        }
    }

    private HandoffApp() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        System.out.println("linked " + relay(linked(), n, 0));
        System.out.println("array " + relay(array(), n, 1));
        System.out.println("deque " + relayDeque(deque(), n));
        System.out.println("priority " + relay(priority(), n, 2));
        System.out.println("delay " + relay(delay(), n, 0));
        System.out.println("transfer " + relayTransfer(transfer(), n));
        System.out.println("synchronous " + relay(synchronous(), n, 1));
        System.out.println("pressured " + pressured(full(), n / 5));
        System.out.println("poison " + poison(pills()));
        System.out.println("drained " + drain(drained(), n));
        System.out.println("pool " + pool(n));
        System.out.println("scheduled " + scheduled(n));
        System.out.println("forkjoin " + forkJoin());
        System.out.println("chain " + chain());
        System.out.println("threads " + threads());
        System.out.println("futures " + futures());
        System.out.println("monitor " + monitor(n));
        System.out.println("timed out " + timedOut());
        System.out.println("misused " + misused());
    }

    /** A turn passed back and forth {@code n} times through one monitor. */
    static final class Turn {
        int holder;
        long waits;

        synchronized void pass(int from, int to) throws InterruptedException {
            while (holder != from) {
                wait();
                waits++;
            }
            holder = to;
            notifyAll();
        }
    }

    /**
     * Two threads pass a turn {@code n} times through {@link Turn}'s monitor; returns the turns passed.
     * How many times each waited varies from run to run: stderr says ({@code monitor waits: K}), and
     * each of those waits ended with a notification.
     */
    private static long monitor(int n) throws InterruptedException {
        Turn turn = new Turn();
        Thread other = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    turn.pass(1, 0);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "turn-taker");
        other.start();
        for (int i = 0; i < n; i++) {
            turn.pass(0, 1);
        }
        other.join();
        synchronized (turn) {
            System.err.println("monitor waits: " + turn.waits);
        }
        return 2L * n;
    }

    /** A timed wait nobody notifies: it ends by its timeout. */
    private static boolean timedOut() throws InterruptedException {
        Object lonely = new Object();
        synchronized (lonely) {
            lonely.wait(5);
        }
        return true;
    }

    /** {@code notify} and {@code wait} without the monitor throw as without the agent. */
    private static String misused() {
        Object m = new Object();
        String outcome;
        try {
            m.notify();
            outcome = "notified";
        } catch (IllegalMonitorStateException e) {
            outcome = e.getClass().getSimpleName();
        }
        try {
            m.wait(1);
            outcome += " waited";
        } catch (IllegalMonitorStateException | InterruptedException e) {
            outcome += " " + e.getClass().getSimpleName();
        }
        return outcome;
    }

    static BlockingQueue<Item> linked() {
        return new LinkedBlockingQueue<>();
    }

    static BlockingQueue<Item> array() {
        return new ArrayBlockingQueue<>(16);
    }

    static BlockingDeque<Item> deque() {
        return new LinkedBlockingDeque<>(16);
    }

    static BlockingQueue<Item> priority() {
        return new PriorityBlockingQueue<>();
    }

    static BlockingQueue<Item> delay() {
        return new DelayQueue<>();
    }

    static LinkedTransferQueue<Item> transfer() {
        return new LinkedTransferQueue<>();
    }

    static BlockingQueue<Item> synchronous() {
        return new SynchronousQueue<>();
    }

    static BlockingQueue<Item> full() {
        return new ArrayBlockingQueue<>(1);
    }

    static BlockingQueue<Item> pills() {
        return new LinkedBlockingQueue<>();
    }

    static BlockingQueue<Item> drained() {
        return new ArrayBlockingQueue<>(1024);
    }

    /**
     * Producer puts {@code n} items (by put, offer, add in turn); the consumer takes them by
     * {@code take}, timed {@code poll} or {@code poll} as {@code how} says. Returns their sum.
     */
    static long relay(BlockingQueue<Item> q, int n, int how) throws InterruptedException {
        AtomicLong sum = new AtomicLong();
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    Item it;
                    if (how == 0) {
                        it = q.take();
                    } else if (how == 1) {
                        while ((it = q.poll(10, TimeUnit.MILLISECONDS)) == null) {
                            Thread.onSpinWait();
                        }
                    } else {
                        while ((it = q.poll()) == null) {
                            Thread.onSpinWait();
                        }
                    }
                    sum.addAndGet(it.value);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "consumer");
        consumer.start();
        for (int i = 0; i < n; i++) {
            Item it = new Item(i);
            switch (i % 3) {
                case 0 -> q.put(it);
                case 1 -> {
                    while (!q.offer(it, 10, TimeUnit.MILLISECONDS)) {
                        Thread.onSpinWait();
                    }
                }
                default -> {
                    while (!(q instanceof SynchronousQueue) && q.remainingCapacity() == 0) {
                        Thread.onSpinWait();
                    }
                    if (q instanceof SynchronousQueue) {
                        q.put(it);
                    } else {
                        q.add(it);
                    }
                }
            }
        }
        consumer.join();
        return sum.get();
    }

    /**
     * Back-pressure: the main thread puts {@code n} items into {@code q} (capacity 1), by put and
     * timed offer in turn; the consumer takes each only once the producer is parked in its put, so
     * every put after the first found the queue full. Returns their sum.
     */
    static long pressured(BlockingQueue<Item> q, int n) throws InterruptedException {
        Thread producer = Thread.currentThread();
        AtomicLong sum = new AtomicLong();
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    if (i < n - 1) {
                        awaitParkedIn(producer, "ConditionObject"); // blocked putting item i + 1
                    }
                    sum.addAndGet(q.take().value);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "pressure-consumer");
        consumer.start();
        for (int i = 0; i < n; i++) {
            Item it = new Item(i);
            if (i % 2 == 0) {
                q.put(it);
            } else if (!q.offer(it, 1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("offer timed out");
            }
        }
        consumer.join();
        return sum.get();
    }

    /** Through a deque: putFirst/offerLast/push in, takeLast/pollFirst out. */
    static long relayDeque(BlockingDeque<Item> q, int n) throws InterruptedException {
        AtomicLong sum = new AtomicLong();
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    Item it = i % 2 == 0 ? q.takeLast() : q.pollFirst(1, TimeUnit.SECONDS);
                    while (it == null) {
                        it = q.pollFirst(1, TimeUnit.SECONDS);
                    }
                    sum.addAndGet(it.value);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "consumer");
        consumer.start();
        for (int i = 0; i < n; i++) {
            Item it = new Item(i);
            if (i % 2 == 0) {
                q.putFirst(it);
            } else {
                q.put(it);
            }
        }
        consumer.join();
        return sum.get();
    }

    /** Through a transfer queue: transfer, timed tryTransfer and put in; take out. */
    static long relayTransfer(LinkedTransferQueue<Item> q, int n) throws InterruptedException {
        AtomicLong sum = new AtomicLong();
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    sum.addAndGet(q.take().value);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "consumer");
        consumer.start();
        for (int i = 0; i < n; i++) {
            Item it = new Item(i);
            switch (i % 3) {
                case 0 -> q.transfer(it);
                case 1 -> {
                    while (!q.tryTransfer(it, 10, TimeUnit.MILLISECONDS)) {
                        Thread.onSpinWait();
                    }
                }
                default -> q.put(it);
            }
        }
        consumer.join();
        return sum.get();
    }

    /** The same pill object put twice while the first is still in the queue (keyed by position: three edges). */
    static long poison(BlockingQueue<Item> q) throws InterruptedException {
        Item pill = new Item(-1);
        q.put(new Item(7));
        q.put(pill);
        q.put(pill);
        long sum = 0;
        for (int i = 0; i < 3; i++) {
            sum += q.take().value;
        }
        return sum;
    }

    /** {@code n} items that leave by {@code drainTo}, not by a take. */
    static long drain(BlockingQueue<Item> q, int n) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            q.put(new Item(i));
        }
        List<Item> out = new ArrayList<>();
        q.drainTo(out);
        return out.stream().mapToLong(i -> i.value).sum();
    }

    /** {@code n} tasks through a one-thread pool's queue (the first goes to the new worker). */
    static long pool(int n) throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        AtomicLong sum = new AtomicLong();
        for (int i = 0; i < n; i++) {
            int v = i;
            pool.execute(() -> sum.addAndGet(v));
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        return sum.get();
    }

    /** {@code n} tasks scheduled now on a one-thread scheduled pool (its delayed work queue). */
    static long scheduled(int n) throws Exception {
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1);
        AtomicLong sum = new AtomicLong();
        List<ScheduledFuture<?>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int v = i;
            all.add(pool.schedule(() -> sum.addAndGet(v), 0, TimeUnit.MILLISECONDS));
        }
        for (ScheduledFuture<?> f : all) {
            f.get();
        }
        pool.shutdown();
        return sum.get();
    }

    /** A recursive sum on a pool of two: every fork is pushed and later run. */
    static long forkJoin() {
        ForkJoinPool pool = new ForkJoinPool(2);
        try {
            return pool.invoke(new Sum(0, 1 << 12));
        } finally {
            pool.shutdown();
        }
    }

    /** Forks below {@value #LEAF} elements: 2^12 / 2^6 = 64 leaves, 63 forks. */
    static final class Sum extends RecursiveTask<Long> {
        static final int LEAF = 64;
        final int from;
        final int to;

        Sum(int from, int to) {
            this.from = from;
            this.to = to;
        }

        @Override
        protected Long compute() {
            if (to - from <= LEAF) {
                long s = 0;
                for (int i = from; i < to; i++) {
                    s += i;
                }
                return s;
            }
            int mid = (from + to) >>> 1;
            Sum left = new Sum(from, mid);
            left.fork();
            return new Sum(mid, to).compute() + left.join();
        }
    }

    /** Three async stages on a pool of two, joined at the end. */
    static long chain() {
        ForkJoinPool pool = new ForkJoinPool(2);
        try {
            return CompletableFuture.supplyAsync(() -> 20L, pool)
                    .thenApplyAsync(x -> x + 1, pool)
                    .thenApplyAsync(x -> x * 2, pool)
                    .join();
        } finally {
            pool.shutdown();
        }
    }

    /** Three threads started and joined. */
    static long threads() throws InterruptedException {
        AtomicLong sum = new AtomicLong();
        Thread[] ts = new Thread[3];
        for (int i = 0; i < ts.length; i++) {
            int v = i + 1;
            ts[i] = new Thread(() -> sum.addAndGet(v), "joined-" + i);
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        return sum.get();
    }

    /**
     * A {@code FutureTask.get} and a {@code CompletableFuture.join} that wait: the completer
     * completes only once the main thread is parked in them.
     */
    static long futures() throws Exception {
        Thread main = Thread.currentThread();
        ExecutorService pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        Future<Long> task = pool.submit(() -> {
            awaitParkedIn(main, "FutureTask");
            return 5L;
        });
        long sum = task.get();
        CompletableFuture<Long> cf = new CompletableFuture<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread completer = new Thread(() -> {
            started.countDown();
            awaitParkedIn(main, "Signaller");
            cf.complete(6L);
        }, "completer");
        completer.start();
        started.await();
        sum += cf.join();
        completer.join();
        pool.shutdown();
        return sum;
    }

    /**
     * Until {@code t} is parked with a blocker of the class named {@code blocker}: {@code FutureTask}
     * (its {@code get}) or {@code CompletableFuture.Signaller} (a waiting {@code join}).
     */
    private static void awaitParkedIn(Thread t, String blocker) {
        while (true) {
            Object b = LockSupport.getBlocker(t);
            if (b != null && b.getClass().getSimpleName().equals(blocker)) {
                return;
            }
            Thread.onSpinWait();
        }
    }
}
