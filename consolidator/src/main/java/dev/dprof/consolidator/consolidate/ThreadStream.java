package dev.dprof.consolidator.consolidate;

import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.read.BatchCursor;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import java.util.Arrays;

/**
 * One thread's events in its own order, a batch at a time, with every tick already converted to
 * a reference interval — the input of the k-way merge. Holds at most one batch, so the merge's
 * memory is bounded by the number of threads, not by the length of the trace.
 */
final class ThreadStream {
    final int stream;
    final int process;
    private final BatchCursor cursor;
    private final TickBounds bounds;
    private final SimulatedClock referenceTruth;
    private final int[] regionIndex;
    private final int[] waitFor;
    private final int[] signal;
    private int communicationOrdinal;

    private int size;
    private int position;
    private EventKind[] kind = new EventKind[256];
    private int[] region = new int[256];
    private long[] tick = new long[256];
    private long[] real = new long[256];
    private long[] a = new long[256];
    private long[] b = new long[256];
    private long[] lo = new long[256];
    private long[] hi = new long[256];
    private int[] comm = new int[256];
    private long unbounded;

    /**
     * @param bounds          the thread's domain to reference; null when not converting ({@code --sync none})
     * @param referenceTruth  the reference's simulated clock, to compute truth from real ticks; or null
     * @param regionIndex     the process's region ids mapped to global region indexes
     */
    ThreadStream(int stream, int process, BatchCursor cursor, TickBounds bounds, SimulatedClock referenceTruth,
                 int[] regionIndex, int[] waitFor, int[] signal) {
        this.stream = stream;
        this.process = process;
        this.cursor = cursor;
        this.bounds = bounds;
        this.referenceTruth = referenceTruth;
        this.regionIndex = regionIndex;
        this.waitFor = waitFor;
        this.signal = signal;
    }

    /** The current event's bounds, cached as fields for the merge's comparisons. */
    long headLo;
    long headHi;

    /** Moves to the next event; false when the thread has none left. */
    boolean advance() throws FormatException {
        position++;
        while (position >= size) {
            if (!cursor.next()) {
                return false;
            }
            load(cursor.events());
        }
        headLo = lo[position];
        headHi = hi[position];
        return true;
    }

    private void load(EventBatchReader events) throws FormatException {
        int n = events.count();
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
        int i = 0;
        boolean sorted = true;
        while (events.next()) {
            kind[i] = events.kind;
            region[i] = events.region < regionIndex.length ? regionIndex[events.region] : -1;
            tick[i] = events.tick;
            real[i] = events.truth;
            a[i] = events.a;
            b[i] = events.b;
            comm[i] = events.kind.communicates() ? communicationOrdinal++ : -1;
            sorted &= i == 0 || tick[i] >= tick[i - 1];
            i++;
        }
        size = i;
        position = 0;
        if (bounds == null) {
            System.arraycopy(tick, 0, lo, 0, size);
            System.arraycopy(tick, 0, hi, 0, size);
        } else {
            bounds.convert(tick, size, sorted, lo, hi);
        }
        for (int k = 0; k < size; k++) {
            if (lo[k] == Long.MIN_VALUE) {
                unbounded++;
            }
        }
    }

    EventKind kind() {
        return kind[position];
    }

    int region() {
        return region[position];
    }

    long tick() {
        return tick[position];
    }

    long lo() {
        return lo[position];
    }

    long hi() {
        return hi[position];
    }

    long a() {
        return a[position];
    }

    long b() {
        return b[position];
    }

    /** The reference reading at the real moment of the event, when simulated; else NO_TRUTH. */
    long truth(long noTruth) {
        long r = real[position];
        return referenceTruth == null || r == EventBatchReader.NO_TRUTH ? noTruth : referenceTruth.apply(r);
    }

    /** What the current event waits for (a send row, or rows + a barrier instance), or -1. */
    int waitsFor() {
        int c = comm[position];
        return c < 0 || c >= waitFor.length ? CausalIndex.NO_DEPENDENCY : waitFor[c];
    }

    /** What the current event signals when emitted, or -1. */
    int signals() {
        int c = comm[position];
        return c < 0 || c >= signal.length ? CausalIndex.NO_DEPENDENCY : signal[c];
    }

    /** Events whose tick fell where the calibration gives no bound (a contradicted stretch). */
    long unbounded() {
        return unbounded;
    }

    void close() {
        cursor.close();
    }
}
