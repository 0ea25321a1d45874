package dev.dprof.bench;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Control;

/**
 * Queue-heavy handoffs, run by {@code ./dprof bench handoff} in forks that carry the agent with
 * handoffs on and, alternately, off ({@link HandoffCommand}): a producer and a consumer thread
 * through an {@code ArrayBlockingQueue} and a {@code LinkedBlockingQueue}, and a producer
 * submitting to a one-thread {@code ThreadPoolExecutor} that waits when its queue is full.
 * Elements are {@value #DISTINCT} distinct preallocated objects cycled through, more than any
 * queue holds, so no reference is ever in flight twice and nothing is allocated per handoff by the
 * benchmark itself.
 *
 * <p>The queue groups' producers and consumers spin on {@code offer}/{@code poll} rather than
 * block, so a thread stopped by JMH at the end of an iteration never leaves the other blocked; the
 * pool's worker runs on after its producer stops and empties the queue.
 *
 * <p>{@code park}: two threads take turns through {@code LockSupport.park}/{@code unpark} and a
 * volatile turn, every park far shorter than the agent's 1 ms threshold for a long wait: what the
 * woven {@code LockSupport} costs a park that records nothing (handoffs kind {@code wait}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HandoffBench {
    static final int DISTINCT = 8192;
    static final int CAPACITY = 1024;

    /** The elements, shared by every state. */
    static final Object[] ITEMS = new Object[DISTINCT];

    static {
        for (int i = 0; i < DISTINCT; i++) {
            ITEMS[i] = new Object();
        }
    }

    /** One queue shared by the group's producer and consumer. */
    @State(Scope.Group)
    public static class Array {
        final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY);
    }

    @State(Scope.Group)
    public static class Linked {
        final BlockingQueue<Object> queue = new LinkedBlockingQueue<>(CAPACITY);
    }

    /** Each thread's position in {@link #ITEMS}. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;

        Object item() {
            Object o = ITEMS[next];
            next = (next + 1) & (DISTINCT - 1);
            return o;
        }
    }

    /**
     * A one-thread pool over a bounded queue; a full queue makes the producer wait for space (its
     * rejection handler puts the task), so every task is handed to the worker. (A caller-runs pool
     * counted a task run in the producer as one operation too, which made a slower worker look
     * faster: the queue was full more often.)
     */
    @State(Scope.Benchmark)
    public static class Pool {
        final AtomicLong ran = new AtomicLong();
        final Runnable[] tasks = new Runnable[DISTINCT];
        ThreadPoolExecutor executor;

        @Setup(Level.Trial)
        public void start() {
            for (int i = 0; i < DISTINCT; i++) {
                tasks[i] = ran::incrementAndGet;
            }
            executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(CAPACITY),
                    Pool::waitForSpace);
            executor.prestartAllCoreThreads();
        }

        /** Puts a task the full queue refused, waiting for space; dropped only if the pool is shut down. */
        private static void waitForSpace(Runnable task, ThreadPoolExecutor executor) {
            if (executor.isShutdown()) {
                return;
            }
            try {
                executor.getQueue().put(task);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            executor.shutdown();
            executor.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    @Benchmark
    @Group("array")
    @GroupThreads(1)
    public boolean arrayPut(Array q, Cursor c, Control control) {
        return put(q.queue, c.item(), control);
    }

    @Benchmark
    @Group("array")
    @GroupThreads(1)
    public Object arrayTake(Array q, Control control) {
        return take(q.queue, control);
    }

    @Benchmark
    @Group("linked")
    @GroupThreads(1)
    public boolean linkedPut(Linked q, Cursor c, Control control) {
        return put(q.queue, c.item(), control);
    }

    @Benchmark
    @Group("linked")
    @GroupThreads(1)
    public Object linkedTake(Linked q, Control control) {
        return take(q.queue, control);
    }

    /** Offers until the queue takes the item, spinning; false if the measurement ended first. */
    private static boolean put(BlockingQueue<Object> queue, Object item, Control control) {
        while (!queue.offer(item)) {
            if (control.stopMeasurement) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    /** Polls until an item comes, spinning; null if the measurement ended first. */
    private static Object take(BlockingQueue<Object> queue, Control control) {
        Object o;
        while ((o = queue.poll()) == null) {
            if (control.stopMeasurement) {
                return null;
            }
            Thread.onSpinWait();
        }
        return o;
    }

    /** Bounds every park of {@code park}, so a thread whose partner JMH stopped comes back to look: 0.1 ms, below the 1 ms threshold. */
    static final long PARK_BOUND_NANOS = 100_000;

    /** Whose turn it is (0 or 1), and the two threads, each set by itself. */
    @State(Scope.Group)
    public static class Turns {
        volatile int turn;
        final Thread[] threads = new Thread[2];
    }

    @Benchmark
    @Group("park")
    @GroupThreads(1)
    public boolean parkPing(Turns t, Control control) {
        return turn(t, 0, control);
    }

    @Benchmark
    @Group("park")
    @GroupThreads(1)
    public boolean parkPong(Turns t, Control control) {
        return turn(t, 1, control);
    }

    /** Parks until it is {@code me}'s turn, then gives the turn to the other thread and unparks it; false if the measurement ended first. */
    private static boolean turn(Turns t, int me, Control control) {
        t.threads[me] = Thread.currentThread();
        while (t.turn != me) {
            if (control.stopMeasurement) {
                return false;
            }
            LockSupport.parkNanos(t, PARK_BOUND_NANOS);
        }
        t.turn = 1 - me;
        Thread other = t.threads[1 - me];
        if (other != null) {
            LockSupport.unpark(other);
        }
        return true;
    }

    /** One task handed to the pool's worker (or run here when its queue is full). */
    @Benchmark
    public void poolExecute(Pool p, Cursor c) {
        p.executor.execute(p.tasks[c.next]);
        c.next = (c.next + 1) & (DISTINCT - 1);
    }
}
