package dev.dprof.it.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Virtual threads for the tests (JDK 21 or later; compiled for 17, so they are made through
 * reflection). {@code VirtualThreadApp nested N}: N virtual threads, every other one named
 * {@code vt-<i>}, each calls {@link #outer}, which calls {@link #work} twice with a
 * {@code Thread.yield()} between; {@code work} sleeps {@value #SLEEP_MS} ms, so every thread parks
 * inside both regions. {@code VirtualThreadApp park N}: N virtual threads park inside
 * {@link #parked} until a line comes on stdin; before and after they park, main prints the heap
 * in use after a full collection ({@code heap BYTES}), and {@code parked N} once all are parked.
 */
public final class VirtualThreadApp {
    public static final int SLEEP_MS = 2;

    private VirtualThreadApp() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        if (args[0].equals("nested")) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                threads.add(start(i % 2 == 0 ? "vt-" + i : null, () -> outer()));
            }
            for (Thread t : threads) {
                t.join();
            }
            System.out.println("done " + n);
            return;
        }
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        // The same work as below with no thread parked, so that both heap figures come after it.
        start(null, () -> parked(new CountDownLatch(0), new AtomicInteger())).join();
        System.out.println("heap " + usedHeap());
        for (int i = 0; i < n; i++) {
            threads.add(start(null, () -> parked(release, inside)));
        }
        while (inside.get() < n) {
            Thread.sleep(10);
        }
        // Lets the drainer pass (once a second at most) over whatever the starts left to name.
        Thread.sleep(2_500);
        System.out.println("heap " + usedHeap());
        System.out.println("parked " + n);
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        release.countDown();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("done " + n);
    }

    /** A region whose two calls of {@link #work} each park the thread. */
    public static void outer() {
        work();
        Thread.yield();
        work();
    }

    /** A region that sleeps, which unmounts a virtual thread. */
    public static void work() {
        try {
            Thread.sleep(SLEEP_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A region inside which the thread parks until released. */
    public static void parked(CountDownLatch release, AtomicInteger inside) {
        inside.incrementAndGet();
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts a virtual thread, named if {@code name} is not null: {@code Thread.ofVirtual()[.name(name)].start(task)}. */
    private static Thread start(String name, Runnable task) throws ReflectiveOperationException {
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        if (name != null) {
            builder = builderType.getMethod("name", String.class).invoke(builder, name);
        }
        Method start = builderType.getMethod("start", Runnable.class);
        return (Thread) start.invoke(builder, task);
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            best = Math.min(best, r.totalMemory() - r.freeMemory());
        }
        return best;
    }
}
