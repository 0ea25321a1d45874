package dev.dprof.consolidator.consolidate;

import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import java.util.Arrays;

/**
 * One batch of one thread, decoded and converted: the columns the merge reads, filled by
 * {@link BatchSource} on the prefetching thread and handed to the merge by {@link BatchPrefetcher}.
 * Reused: a stream owns a few, and they grow to its largest batch.
 */
final class DecodedBatch {
    final int stream;
    int size;
    /** No events and none to come: the thread's last batch was read. */
    boolean end;
    /** Why the thread's batches cannot be read further (then {@link #end} is set too). */
    FormatException failure;
    EventKind[] kind = new EventKind[256];
    int[] region = new int[256];
    long[] tick = new long[256];
    long[] real = new long[256];
    long[] a = new long[256];
    long[] b = new long[256];
    long[] lo = new long[256];
    long[] hi = new long[256];
    /** The event's ordinal among its thread's communication events, or -1. */
    int[] comm = new int[256];

    DecodedBatch(int stream) {
        this.stream = stream;
    }

    void ensureCapacity(int n) {
        if (kind.length < n) {
            int c = Math.max(n, kind.length * 2);
            kind = Arrays.copyOf(kind, c);
            region = Arrays.copyOf(region, c);
            tick = Arrays.copyOf(tick, c);
            real = Arrays.copyOf(real, c);
            a = Arrays.copyOf(a, c);
            b = Arrays.copyOf(b, c);
            lo = Arrays.copyOf(lo, c);
            hi = Arrays.copyOf(hi, c);
            comm = Arrays.copyOf(comm, c);
        }
    }
}
