package dev.dprof.it.app;

import java.util.concurrent.CountDownLatch;

/**
 * {@code OverflowApp THREADS CALLS}: threads {@code overflow-0…} each call the region {@link #step}
 * {@code CALLS} times without pause, far faster than a drainer empties a small ring, then stay
 * alive (so no thread end follows); main prints {@code recorded N}, N the region events the probes
 * were asked to record (an enter and an exit per call), and waits to be killed.
 */
public final class OverflowApp {
    private static volatile long sink;

    private OverflowApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = Integer.parseInt(args[0]);
        int calls = Integer.parseInt(args[1]);
        CountDownLatch done = new CountDownLatch(threads);
        CountDownLatch never = new CountDownLatch(1);
        for (int k = 0; k < threads; k++) {
            Thread t = new Thread(() -> {
                long sum = 0;
                for (int i = 0; i < calls; i++) {
                    sum += step(i);
                }
                sink = sum;
                done.countDown();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "overflow-" + k);
            t.setDaemon(true);
            t.start();
        }
        done.await();
        System.out.println("recorded " + 2L * threads * calls);
        System.out.flush();
        never.await();
    }

    static long step(long i) {
        return i ^ (i >>> 3);
    }
}
