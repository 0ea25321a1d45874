package dev.dprof.it.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Records in bursts, each on command: prints {@code ready}, then for every line read from stdin
 * calls the region {@link #step} {@value #CALLS} times on thread {@code burst} and prints
 * {@code burst N}. Between two lines the process records nothing, so the agent's drainer goes
 * idle. The tests end it with {@code kill -9}.
 */
public final class BurstApp {
    public static final int CALLS = 100;
    private static long sum;

    private BurstApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        Thread t = new Thread(() -> {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("ready");
            System.out.flush();
            try {
                for (int burst = 1; in.readLine() != null; burst++) {
                    for (int i = 0; i < CALLS; i++) {
                        sum += step(i);
                    }
                    System.out.println("burst " + burst);
                    System.out.flush();
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, "burst");
        t.start();
        t.join();
    }

    static long step(long i) {
        return i ^ (i >>> 3);
    }
}
