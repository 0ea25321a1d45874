package dev.dprof.consolidator.consolidate;

import dev.dprof.consolidator.read.BatchCursor;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;

/**
 * Reads one thread's batches from its process queue and turns each into a {@link DecodedBatch}
 * with every tick converted to a reference interval. Used by one thread only, the prefetching
 * one, which also opens and closes the cursor (Chronicle tailers belong to one thread).
 */
final class BatchSource implements BatchPrefetcher.Source {
    private final ProcessQueue queue;
    private final long thread;
    private final TickBounds bounds;
    private final int[] regionIndex;
    private BatchCursor cursor;
    private boolean ended;
    private int communicationOrdinal;

    /**
     * @param bounds      the thread's domain to reference; null when not converting ({@code --sync none})
     * @param regionIndex the process's region ids mapped to global region indexes
     */
    BatchSource(ProcessQueue queue, long thread, TickBounds bounds, int[] regionIndex) {
        this.queue = queue;
        this.thread = thread;
        this.bounds = bounds;
        this.regionIndex = regionIndex;
    }

    /** Fills {@code into} with the thread's next batch; false (and the cursor closed) after the last. */
    @Override
    public boolean fill(DecodedBatch into) throws FormatException {
        if (ended) {
            return false;
        }
        if (cursor == null) {
            cursor = queue.batches(thread);
        }
        if (!cursor.next()) {
            ended = true;
            close();
            return false;
        }
        EventBatchReader events = cursor.events();
        into.ensureCapacity(events.count());
        int i = 0;
        boolean sorted = true;
        while (events.next()) {
            into.kind[i] = events.kind;
            into.region[i] = events.region < regionIndex.length ? regionIndex[events.region] : -1;
            into.tick[i] = events.tick;
            into.real[i] = events.truth;
            into.a[i] = events.a;
            into.b[i] = events.b;
            switch (events.kind) {
                case SEND, RECEIVE, BARRIER_ENTER, BARRIER_EXIT -> into.comm[i] = communicationOrdinal++;
                default -> into.comm[i] = -1;
            }
            sorted &= i == 0 || into.tick[i] >= into.tick[i - 1];
            i++;
        }
        into.size = i;
        if (bounds == null) {
            System.arraycopy(into.tick, 0, into.lo, 0, i);
            System.arraycopy(into.tick, 0, into.hi, 0, i);
        } else {
            bounds.convert(into.tick, i, sorted, into.lo, into.hi);
        }
        return true;
    }

    @Override
    public void close() {
        if (cursor != null) {
            cursor.close();
            cursor = null;
        }
    }
}
