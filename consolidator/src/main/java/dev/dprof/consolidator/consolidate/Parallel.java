package dev.dprof.consolidator.consolidate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs independent tasks on as many threads as there are processors and returns their results in
 * the tasks' order. A task's checked exception of the expected type is rethrown as it is (the first
 * one in task order), so callers keep their one-line error messages.
 */
final class Parallel {
    private Parallel() {
    }

    static <T, X extends Exception> List<T> invokeAll(String name, List<Callable<T>> tasks, Class<X> expected)
            throws X {
        int threads = Math.max(1, Math.min(tasks.size(), Runtime.getRuntime().availableProcessors()));
        AtomicInteger count = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(task));
            }
            List<T> results = new ArrayList<>(futures.size());
            for (Future<T> f : futures) {
                results.add(join(f, expected));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Starts one task on a thread of its own; {@link Pending#join} waits for its result. */
    static <T> Pending<T> start(String name, Callable<T> task) {
        java.util.concurrent.FutureTask<T> future = new java.util.concurrent.FutureTask<>(task);
        Thread t = new Thread(future, name);
        t.setDaemon(true);
        t.start();
        return new Pending<>(future);
    }

    /** A task started by {@link #start}. */
    static final class Pending<T> {
        private final Future<T> future;

        private Pending(Future<T> future) {
            this.future = future;
        }

        <X extends Exception> T join(Class<X> expected) throws X {
            return Parallel.join(future, expected);
        }
    }

    private static <T, X extends Exception> T join(Future<T> future, Class<X> expected) throws X {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a parallel task", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (expected.isInstance(cause)) {
                throw expected.cast(cause);
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }
}
