package dev.dprof.it.app;

import java.util.concurrent.locks.LockSupport;

/**
 * Calls the region {@link #step} forever on thread {@code spin}, pausing briefly every 64
 * calls so the machine stays responsive, and prints {@code running} once it is under way. The
 * tests end it with {@code kill -9}.
 */
public final class SpinApp {
    private static long sum;

    private SpinApp() {
    }

    public static void main(String[] args) {
        Thread t = new Thread(() -> {
            for (long i = 0; ; i++) {
                sum += step(i);
                if (i == 1000) {
                    System.out.println("running");
                    System.out.flush();
                }
                if ((i & 63) == 0) {
                    LockSupport.parkNanos(20_000);
                }
            }
        }, "spin");
        t.start();
    }

    static long step(long i) {
        return i ^ (i >>> 3);
    }
}
