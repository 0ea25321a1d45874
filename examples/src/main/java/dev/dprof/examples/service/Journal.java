package dev.dprof.examples.service;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The server's synchronous stage, standing in for a journal on disk: one thread takes the
 * computed requests from its queue in arrival order, "syncs" each — folds it into the journal's
 * digest, then waits a fixed time as a disk flush would — and only then hands it on to be answered.
 * Being serial and the slowest stage, it bounds the server's throughput: making each sync faster
 * shortens the whole run, which is what {@code dprof demo --app service} checks dCOZ (DProf §5.2)
 * against.
 *
 * <p>The sync is a timed wait ({@link LockSupport#parkNanos}), not an fsync: a real disk's
 * latency varies from sync to sync, and spinning would take CPU from the other stages on a small
 * machine, which the causal model does not see. The speedup switch removes a known fraction
 * {@code c} of each wait: it lasts {@code (1 − c) · d} instead of {@code d}.
 */
final class Journal {
    /** Where a synced request goes next. */
    @FunctionalInterface
    interface Next {
        void accept(Exchange synced) throws InterruptedException;
    }

    private final BlockingQueue<Exchange> pending = new LinkedBlockingQueue<>();
    private final long waitNanos;
    private long synced;
    private long waitedNanos;
    private long digest;

    /**
     * @param syncNanos each sync's wait before the switch, {@code d}
     * @param speedup   the fraction {@code c} of it the switch removes, in [0, 1)
     */
    Journal(long syncNanos, double speedup) {
        if (syncNanos < 0) {
            throw new IllegalArgumentException("a sync cannot take " + syncNanos + " ns");
        }
        if (!(speedup >= 0 && speedup < 1)) {
            throw new IllegalArgumentException("--sync-speedup must be in [0, 1) (the fraction of each sync removed), "
                    + "found " + speedup);
        }
        this.waitNanos = waitNanos(syncNanos, speedup);
    }

    /** How long each sync waits: {@code (1 − c) · d}, rounded to the nanosecond. */
    static long waitNanos(long syncNanos, double speedup) {
        return Math.round(syncNanos * (1 - speedup));
    }

    /** Queues a computed request (or an {@link Exchange#end} once no more will come). */
    void append(Exchange computed) throws InterruptedException {
        pending.put(computed);
    }

    /** The journal thread: syncs every request in order and hands it to {@code next}, until the end marker. */
    void run(Next next) throws InterruptedException {
        while (true) {
            Exchange e = pending.take();
            if (e.isEnd()) {
                return;
            }
            sync(e);
            next.accept(e);
        }
    }

    /** The sync region: records the request, then waits as long as a flush of it takes. */
    void sync(Exchange e) throws InterruptedException {
        digest += Kernel.hash(e.seq ^ e.answer, 1);
        long deadline = System.nanoTime() + waitNanos;
        // parkNanos may return early (spuriously, or for an unpark nobody sends here): wait out the rest
        for (long left = waitNanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                throw new InterruptedException("the journal was interrupted in a sync");
            }
        }
        synced++;
        waitedNanos += waitNanos;
    }

    /** Requests synced so far; read after the journal thread ended. */
    long synced() {
        return synced;
    }

    /** The waits the syncs asked for, summed (each at least this long); read after the journal thread ended. */
    long waitedNanos() {
        return waitedNanos;
    }

    /** What the journal recorded, folded by a sum: the same for the same requests and answers in any order. */
    long digest() {
        return digest;
    }
}
