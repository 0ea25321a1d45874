package dev.dprof.consolidator.consolidate;

import dev.dprof.format.FormatException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads, decodes and converts the threads' batches on a thread of its own, ahead of the merge:
 * the merge and the writer keep one core busy, decoding the other.
 *
 * <p>Each stream owns {@value #BATCHES_PER_STREAM} {@link DecodedBatch}es for the whole run: the
 * one the merge reads, and the rest filled ahead or waiting to be. Memory is therefore bounded by
 * the number of threads and the largest batch, never by the length of the trace. The prefetcher
 * refills batches in the order the merge gives them back, which is the order it consumes the
 * streams in.
 *
 * <p>Implementation notes: hand-overs are non-blocking queue operations (an uncontended lock,
 * no system call); a thread parks only when it has nothing to do, and the other wakes it only
 * then — the prefetcher once {@value #WAKE_AFTER} batches wait to be refilled (or at once when
 * the merge starves), the merge only when the batch it waits for arrives. Without that, every
 * batch would cost a futex wake-up on each side, as much as decoding it.
 */
final class BatchPrefetcher implements AutoCloseable {
    static final int BATCHES_PER_STREAM = 4;

    /** Where one stream's batches come from; called on the prefetching thread only. */
    interface Source {
        /** Fills the next batch; false after the last. */
        boolean fill(DecodedBatch into) throws FormatException;

        /** Releases what reading held (called on the prefetching thread, at its end). */
        void close();
    }

    /** How many batches wait for a refill before a parked prefetcher is woken. */
    static final int WAKE_AFTER = 16;

    private final Source[] sources;
    private final ArrayBlockingQueue<DecodedBatch> toFill;
    private final ArrayBlockingQueue<DecodedBatch>[] filled;
    private final Thread thread;
    private final Thread merge;
    private volatile boolean prefetcherParked;
    private volatile int mergeWaitsFor = -1;
    private volatile boolean closed;

    @SuppressWarnings("unchecked")
    BatchPrefetcher(List<? extends Source> sources) {
        this.sources = sources.toArray(new Source[0]);
        int k = this.sources.length;
        this.toFill = new ArrayBlockingQueue<>(Math.max(1, k * BATCHES_PER_STREAM));
        this.filled = new ArrayBlockingQueue[k];
        for (int round = 0; round < BATCHES_PER_STREAM; round++) {
            for (int s = 0; s < k; s++) {
                toFill.add(new DecodedBatch(s));
            }
        }
        for (int s = 0; s < k; s++) {
            filled[s] = new ArrayBlockingQueue<>(BATCHES_PER_STREAM);
        }
        this.merge = Thread.currentThread();
        this.thread = new Thread(this::prefetch, "dprof-prefetch");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Gives back {@code done} (null at the start) and returns stream {@code stream}'s next batch,
     * waiting for it if need be. A batch with {@code end} set is the last.
     */
    DecodedBatch next(int stream, DecodedBatch done) {
        if (done != null) {
            toFill.offer(done);
            if (prefetcherParked && toFill.size() >= WAKE_AFTER) {
                LockSupport.unpark(thread);
            }
        }
        DecodedBatch next = filled[stream].poll();
        if (next != null) {
            return next;
        }
        mergeWaitsFor = stream;
        LockSupport.unpark(thread);
        while ((next = filled[stream].poll()) == null) {
            if (!thread.isAlive()) {
                throw new IllegalStateException("the prefetching thread ended early");
            }
            LockSupport.park(this);
        }
        mergeWaitsFor = -1;
        return next;
    }

    private void prefetch() {
        try {
            while (!closed) {
                DecodedBatch batch = toFill.poll();
                if (batch == null) {
                    prefetcherParked = true;
                    if (toFill.isEmpty() && !closed) {
                        LockSupport.park(this);
                    }
                    prefetcherParked = false;
                    continue;
                }
                fill(batch);
                filled[batch.stream].offer(batch);
                if (mergeWaitsFor == batch.stream) {
                    LockSupport.unpark(merge);
                }
            }
        } finally {
            for (Source s : sources) {
                s.close();
            }
        }
    }

    private void fill(DecodedBatch batch) {
        batch.size = 0;
        if (batch.end) {
            return;
        }
        try {
            batch.end = !sources[batch.stream].fill(batch);
        } catch (FormatException | RuntimeException e) {
            batch.end = true;
            batch.failure = e instanceof FormatException f ? f : new FormatException(e.toString());
        }
    }

    /** Stops the prefetching thread and waits until it closed every cursor. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
