package dev.dprof.agent.bootstrap;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A thread that runs steps on command, so a test can interleave producer and drainer exactly. */
final class Worker implements AutoCloseable {
    private final BlockingQueue<Runnable> steps = new LinkedBlockingQueue<>();
    private final Thread thread;

    Worker(String name) {
        thread = new Thread(() -> {
            try {
                while (true) {
                    Runnable r = steps.take();
                    if (r == STOP) {
                        return;
                    }
                    r.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        thread.start();
    }

    private static final Runnable STOP = () -> { };

    long tid() {
        return thread.getId();
    }

    <T> T call(Callable<T> step) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        steps.add(() -> {
            try {
                f.complete(step.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f.get(60, TimeUnit.SECONDS);
    }

    /** Lets the thread exit and waits for it. */
    @Override
    public void close() {
        steps.add(STOP);
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new AssertionError("worker did not stop");
        }
    }
}
