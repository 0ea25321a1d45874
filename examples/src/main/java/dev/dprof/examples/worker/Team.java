package dev.dprof.examples.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.function.IntFunction;

/** Runs a process's worker threads and reports the failure that started it, if any. */
public final class Team {
    /** One thread's work. */
    @FunctionalInterface
    public interface Body {
        void run(int thread) throws Exception;
    }

    private final List<Throwable> failures = new ArrayList<>();
    private final Runnable onFailure;
    private Thread[] threads;

    private Team(Runnable onFailure) {
        this.onFailure = onFailure;
    }

    /**
     * Runs {@code body} in {@code count} threads named {@code name-i} and waits for all. On the
     * first failure the others are interrupted and {@code onFailure} runs (closing the network, so
     * that a thread blocked in a socket read fails too instead of waiting forever); then the root
     * cause is thrown.
     */
    public static void run(String name, int count, Body body, Runnable onFailure) throws Exception {
        start(t -> name + "-" + t, count, body, onFailure).join();
    }

    /**
     * Starts {@code body} in {@code count} threads, each named by {@code names} from its index
     * (threads of different roles), and returns at once; {@link #join} waits for them as
     * {@link #run} does.
     */
    public static Team start(IntFunction<String> names, int count, Body body, Runnable onFailure) {
        Team team = new Team(onFailure);
        team.threads = new Thread[count];
        for (int t = 0; t < count; t++) {
            int index = t;
            team.threads[t] = new Thread(() -> team.runOne(body, index), names.apply(t));
        }
        for (Thread thread : team.threads) {
            thread.start();
        }
        return team;
    }

    /** Waits for every thread of the team; then throws the root cause of its first failure, if any. */
    public void join() throws Exception {
        for (Thread thread : threads) {
            thread.join();
        }
        rethrow();
    }

    private void runOne(Body body, int index) {
        try {
            body.run(index);
        } catch (Throwable failure) {
            boolean first;
            synchronized (this) {
                first = failures.isEmpty();
                failures.add(failure);
            }
            if (first) {
                for (Thread thread : threads) {
                    if (thread != Thread.currentThread()) {
                        thread.interrupt();
                    }
                }
                onFailure.run();
            }
        }
    }

    private void rethrow() throws Exception {
        if (failures.isEmpty()) {
            return;
        }
        // a broken barrier or an interrupt is what the others see after the real failure
        Throwable cause = failures.stream().filter(f -> !isConsequence(f)).findFirst().orElse(failures.get(0));
        for (Throwable f : failures) {
            if (f != cause) {
                cause.addSuppressed(f);
            }
        }
        if (cause instanceof Exception e) {
            throw e;
        }
        throw (Error) cause;
    }

    private static boolean isConsequence(Throwable f) {
        return f instanceof BrokenBarrierException || f instanceof InterruptedException;
    }
}
