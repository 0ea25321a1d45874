package dev.dprof.consolidator.consolidate;

import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.read.BatchCursor;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;

/**
 * One thread's events in its own order, with every tick already converted to a reference
 * interval — the input of the k-way merge. Holds at most one batch, so the merge's memory is
 * bounded by the number of threads, not by the length of the trace.
 *
 * <p>Implementation notes: a batch is decoded and converted {@link #CHUNK} events at a time, not
 * whole. The merge takes one event from one stream after another, so every stream's columns must
 * stay in the cache between its turns; with whole batches (up to 4 096 events, nine columns) forty
 * streams kept about 12 MiB of columns in play and nearly every event missed the 2 MiB L2 cache.
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
    /** The process's TCP regions and connection ends, or null when it has none. */
    TcpFlows.OfProcess tcp;
    /**
     * What the thread's first event waits for besides its own dependency: the row of the
     * {@code Thread.start} that started it ({@link CausalIndex#startWait}); cleared once the first
     * event is emitted or found free to go.
     */
    int startWait = CausalIndex.NO_DEPENDENCY;
    private boolean loaded;
    /** Events of corrupt batches left out, and the first corruption's description (null if none). */
    long corruptEvents;
    String firstCorruption;
    /** The communication ordinal at the current batch's start, and whether the batch has an index. */
    private int batchOrdinal;
    private boolean indexed;

    /** Events decoded and converted at a time. */
    static final int CHUNK = 128;

    private int size;
    private int position;
    /** Events of the cursor's current batch not decoded yet. */
    private int undecoded;
    private final EventKind[] kind = new EventKind[CHUNK];
    private final int[] region = new int[CHUNK];
    private final long[] tick = new long[CHUNK];
    private final long[] real = new long[CHUNK];
    private final long[] a = new long[CHUNK];
    private final long[] b = new long[CHUNK];
    private final long[] lo = new long[CHUNK];
    private final long[] hi = new long[CHUNK];
    private final int[] comm = new int[CHUNK];

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
        if (loaded) {
            startWait = CausalIndex.NO_DEPENDENCY;
        }
        loaded = true;
        position++;
        while (position >= size) {
            if (undecoded == 0) {
                if (!cursor.next()) {
                    return false;
                }
                undecoded = cursor.events().count();
                batchOrdinal = communicationOrdinal;
                indexed = cursor.events().hasCommunicationIndex();
            }
            load(cursor.events());
        }
        headLo = lo[position];
        headHi = hi[position];
        return true;
    }

    /** Decodes and converts the next chunk of the current batch. */
    private void load(EventBatchReader events) throws FormatException {
        int n = Math.min(CHUNK, undecoded);
        undecoded -= n;
        int i = 0;
        boolean sorted = true;
        try {
            i = decode(events, n);
        } catch (Corrupt c) {
            i = c.decoded;
            corruptEvents += n - i + undecoded;
            undecoded = 0;
            if (firstCorruption == null) {
                firstCorruption = c.getMessage();
            }
            if (indexed) {
                // The first pass took every entry of the batch's communication index: keep the ordinals in step.
                // Counted only here (the first pass's cursor is apart from the events' and still at the
                // index's start), so a batch that decodes has its index read once, by its markers.
                communicationOrdinal = batchOrdinal + indexEntries(events);
            }
        }
        for (int k = 1; k < i; k++) {
            sorted &= tick[k] >= tick[k - 1];
        }
        size = i;
        position = 0;
        if (bounds == null) {
            System.arraycopy(tick, 0, lo, 0, size);
            System.arraycopy(tick, 0, hi, 0, size);
        } else {
            bounds.convert(tick, size, sorted, lo, hi);
        }
    }

    /** A batch that failed to decode after {@code decoded} events of the chunk. */
    private static final class Corrupt extends Exception {
        private static final long serialVersionUID = 1L;
        final int decoded;

        Corrupt(String message, int decoded) {
            super(message, null, false, false);
            this.decoded = decoded;
        }
    }

    /** The entries of the batch's communication index, up to the first it cannot read (as the first pass reads it). */
    private static int indexEntries(EventBatchReader events) {
        int n = 0;
        try {
            while (events.nextCommunication()) {
                n++;
            }
        } catch (FormatException e) {
            // the first pass stopped at the same entry
        }
        return n;
    }

    private int decode(EventBatchReader events, int n) throws Corrupt {
        int i = 0;
        try {
            i = decodeChunk(events, n);
        } catch (FormatException e) {
            throw new Corrupt(e.getMessage(), decodedSoFar);
        }
        return i;
    }

    /** Events of the current chunk decoded so far (for a chunk that fails part-way). */
    private int decodedSoFar;

    private int decodeChunk(EventBatchReader events, int n) throws FormatException {
        int i = 0;
        decodedSoFar = 0;
        while (i < n && events.next()) {
            kind[i] = events.kind;
            region[i] = events.region < regionIndex.length ? regionIndex[events.region] : -1;
            tick[i] = events.tick;
            real[i] = events.truth;
            a[i] = events.a;
            b[i] = events.b;
            comm[i] = -1;
            if (events.kind.communicates()) {
                comm[i] = communicationOrdinal++;
                if (tcp != null && tcp.isTcp(events.region)) {
                    a[i] = tcp.flow(events.region, events.a); // the profile names the flow, not the process's connection
                }
            }
            i++;
            decodedSoFar = i;
        }
        return i;
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

    /**
     * What the current event waits for: before the first event, the put that started the thread;
     * else a send's (a put's, a take's) row, or rows + a barrier instance; or -1.
     */
    int waitsFor() {
        if (startWait != CausalIndex.NO_DEPENDENCY) {
            return startWait;
        }
        int c = comm[position];
        return c < 0 || c >= waitFor.length ? CausalIndex.NO_DEPENDENCY : waitFor[c];
    }

    /** What the current event signals when emitted, or -1. */
    int signals() {
        int c = comm[position];
        return c < 0 || c >= signal.length ? CausalIndex.NO_DEPENDENCY : signal[c];
    }

    void close() {
        cursor.close();
    }
}
