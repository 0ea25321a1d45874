package dev.dprof.consolidator.read;

import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchBuilder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The sequential reading of a process whose carriers ran virtual threads
 * ({@link VirtualThreadSplit}): hands the visitor a carrier's own events as the carrier's batches
 * and each piece of a virtual thread as a batch of that thread, in the thread's order. The queue
 * holds the pieces of one virtual thread in the order its carriers' rings were drained, which is
 * not always their order (the drainer may copy a carrier's ring before a piece is stored there,
 * and another carrier's later piece after); a piece that comes early waits here until the one
 * before it has ended, so the visitor gets every thread's events in program order.
 *
 * <p>Memory: per virtual thread being read, the rank of its next piece; the bytes of the pieces
 * that came early (at most what one drain pass held of the thread).
 */
final class SplitVisitor extends RecordVisitor.Forwarding {
    private final VirtualThreadSplit split;
    private final VirtualThreadSplit.Walk walk;
    private final EventBatchBuilder own = new EventBatchBuilder();
    private final EventBatchBuilder part = new EventBatchBuilder();
    private final ByteSink sink = new ByteSink(1 << 12);
    private final EventBatchReader out = new EventBatchReader();
    /** Per thread with batches of its own: documents read so far. */
    private final Map<Long, int[]> position = new HashMap<>();
    /** Per virtual thread being read: the rank of the piece it is in or waits for, and what came early. */
    private final Map<Long, Progress> progress = new HashMap<>();

    private static final class Progress {
        int next;
        /** By rank, in arrival order: the parts that came before the pieces ahead of them had ended. */
        final Map<Integer, List<Early>> early = new HashMap<>();
    }

    /** A part of a piece that came early: its batch (null if it held no event) and whether the piece ends with it. */
    private record Early(byte[] batch, boolean ends) {
    }

    SplitVisitor(RecordVisitor visitor, VirtualThreadSplit split) {
        super(visitor);
        this.split = split;
        this.walk = split.new Walk();
    }

    @Override
    public void batch(EventBatchReader events) throws FormatException {
        long thread = events.threadId();
        VirtualThreadSplit.ThreadDocs docs = split.documents(thread);
        int[] seen = position.computeIfAbsent(thread, t -> new int[1]);
        int doc = seen[0]++;
        if (docs == null || doc >= docs.documents || !docs.isCarrier() || docs.allOwn(doc)) {
            next.batch(events);
            return;
        }
        walk.start(docs, doc);
        own.start(thread, events);
        int current = walk.open();
        startPart(current, events);
        while (events.next()) {
            int owner = walk.owner(events);
            if (owner != current) {
                endPart(current, walk.open() != current);
                current = owner;
                startPart(current, events);
            }
            (current < 0 ? own : part).add(events);
        }
        endPart(current, walk.open() != current);
        if (own.count() > 0) {
            deliver(own);
        }
    }

    private void startPart(int piece, EventBatchReader source) {
        if (piece >= 0) {
            part.start(split.pieceThread(piece), source);
        }
    }

    /** A part of {@code piece} is complete: it goes to the visitor now, or waits for the pieces before it. */
    private void endPart(int piece, boolean ends) throws FormatException {
        if (piece < 0) {
            return;
        }
        long thread = split.pieceThread(piece);
        int rank = split.pieceRank(piece);
        Progress p = progress.computeIfAbsent(thread, t -> new Progress());
        if (rank != p.next) {
            sink.clear();
            part.encode(sink);
            p.early.computeIfAbsent(rank, r -> new ArrayList<>()).add(new Early(part.count() == 0 ? null
                    : sink.toByteArray(), ends));
            return;
        }
        if (part.count() > 0) {
            deliver(part);
        }
        if (ends) {
            p.next++;
            catchUp(thread, p);
        }
    }

    /** Hands over the parts that came early and whose turn it is now. */
    private void catchUp(long thread, Progress p) throws FormatException {
        boolean ended = true;
        while (ended && !p.early.isEmpty()) {
            List<Early> parts = p.early.remove(p.next);
            if (parts == null) {
                break;
            }
            ended = false;
            for (Early e : parts) {
                deliver(e.batch);
                ended |= e.ends;
            }
            if (ended) {
                p.next++;
            }
        }
        int[] pieces = split.piecesOf(thread);
        if (p.early.isEmpty() && pieces != null && p.next >= pieces.length) {
            progress.remove(thread);
        }
    }

    /** After the last record: what still waits (a piece whose end was never recorded) goes out in its order. */
    void finish() throws FormatException {
        for (Progress p : progress.values()) {
            for (List<Early> parts : new java.util.TreeMap<>(p.early).values()) {
                for (Early e : parts) {
                    deliver(e.batch);
                }
            }
        }
        progress.clear();
    }

    private void deliver(EventBatchBuilder batch) throws FormatException {
        sink.clear();
        batch.encode(sink);
        next.batch(out.reset(sink.array(), 1, sink.size() - 1));
    }

    private void deliver(byte[] batch) throws FormatException {
        if (batch != null) {
            next.batch(out.reset(batch, 1, batch.length - 1));
        }
    }
}
