package dev.dprof.consolidator.consolidate;

import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;

/**
 * One thread's events in its own order, a batch at a time, with every tick already converted to
 * a reference interval — the input of the k-way merge. The batches come decoded from the
 * {@link BatchPrefetcher}; a stream holds a few at most, so the merge's memory is bounded by the
 * number of threads, not by the length of the trace.
 */
final class ThreadStream {
    final int stream;
    private final BatchPrefetcher prefetcher;
    private final SimulatedClock referenceTruth;
    private final int[] waitFor;
    private final int[] signal;
    private DecodedBatch batch;
    private int position;

    /**
     * @param stream         the stream's index, also its index in the prefetcher
     * @param referenceTruth the reference's simulated clock, to compute truth from real ticks; or null
     * @param waitFor        what each communication event waits for, by ordinal
     * @param signal         what each communication event signals, by ordinal
     */
    ThreadStream(int stream, BatchPrefetcher prefetcher, SimulatedClock referenceTruth, int[] waitFor, int[] signal) {
        this.stream = stream;
        this.prefetcher = prefetcher;
        this.referenceTruth = referenceTruth;
        this.waitFor = waitFor;
        this.signal = signal;
    }

    /** The current event's bounds, cached as fields for the merge's comparisons. */
    long headLo;
    long headHi;

    /** Moves to the next event; false when the thread has none left. */
    boolean advance() throws FormatException {
        position++;
        while (batch == null || position >= batch.size) {
            if (batch != null && batch.end) {
                if (batch.failure != null) {
                    throw batch.failure;
                }
                return false;
            }
            batch = prefetcher.next(stream, batch);
            position = 0;
        }
        headLo = batch.lo[position];
        headHi = batch.hi[position];
        return true;
    }

    EventKind kind() {
        return batch.kind[position];
    }

    int region() {
        return batch.region[position];
    }

    long tick() {
        return batch.tick[position];
    }

    long lo() {
        return batch.lo[position];
    }

    long hi() {
        return batch.hi[position];
    }

    long a() {
        return batch.a[position];
    }

    long b() {
        return batch.b[position];
    }

    /** The reference reading at the real moment of the event, when simulated; else NO_TRUTH. */
    long truth(long noTruth) {
        long r = batch.real[position];
        return referenceTruth == null || r == EventBatchReader.NO_TRUTH ? noTruth : referenceTruth.apply(r);
    }

    /** What the current event waits for (a send row, or rows + a barrier instance), or -1. */
    int waitsFor() {
        int c = batch.comm[position];
        return c < 0 || c >= waitFor.length ? CausalIndex.NO_DEPENDENCY : waitFor[c];
    }

    /** What the current event signals when emitted, or -1. */
    int signals() {
        int c = batch.comm[position];
        return c < 0 || c >= signal.length ? CausalIndex.NO_DEPENDENCY : signal[c];
    }
}
