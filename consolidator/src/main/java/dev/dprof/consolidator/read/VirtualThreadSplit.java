package dev.dprof.consolidator.read;

import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the events of a process's virtual threads are (docs/FORMAT.md, "Virtual threads"). A
 * virtual thread records on the ring of the carrier it runs on, between a {@code VT_MOUNT} and a
 * {@code VT_UNMOUNT} carrying its id; the queue holds the carrier's batches as recorded. This index
 * cuts each carrier's events into <em>pieces</em>: a piece is one virtual thread's run on one
 * carrier, from its mount to its unmount (both included), and everything outside pieces stays the
 * carrier's. A virtual thread's stream is its pieces in tick order, whichever carriers they ran
 * on: the carriers' ticks are of one clock (one TSC), and a virtual thread runs on one carrier at a
 * time, so the order of its pieces is the order of their mounts. {@link ProcessQueue} reads
 * through it, so every reader sees virtual threads as threads and never a carrier's part of them.
 *
 * <p>Pieces from the markers alone, the same rules for the index (which sees only the markers,
 * from each batch's communication index) and for the readers (which see every event):
 * <ul>
 * <li>a {@code VT_MOUNT(v)} opens a piece of {@code v}; one already open on the carrier (its
 * unmount was lost to a full ring) ends just before it;</li>
 * <li>a {@code VT_UNMOUNT(v)} ends the open piece if it is {@code v}'s; otherwise (a lost mount)
 * it is a piece of {@code v} by itself, and the open piece, if any, ends before it;</li>
 * <li>any other event belongs to the open piece, or to the carrier when none is open;</li>
 * <li>a marker naming a thread with batches of its own is damage (thread ids are one across
 * platform and virtual threads) and counts as any other event.</li>
 * </ul>
 *
 * <p>Memory: per batch document one address and two ints, per piece a few longs, and while the
 * index is built a record per marker — like the messages, bounded by the communication, never by
 * the region events.
 */
final class VirtualThreadSplit {
    /** One thread's batch documents, and for a carrier its pieces. */
    static final class ThreadDocs {
        final long thread;
        long[] addresses = new long[4];
        /** Per document: the piece (index into {@link #pieces}) open at its start, or -1. */
        int[] openAtStart = new int[4];
        /** Per document: the index into {@link #pieces} of the next piece to open. */
        int[] nextAtStart = new int[4];
        int documents;
        int[] pieces = new int[0];
        int pieceCount;
        /** The index's walk: the piece open after the last marker seen, or -1; the documents it has passed. */
        private int open = -1;
        private int started;

        ThreadDocs(long thread) {
            this.thread = thread;
        }

        boolean isCarrier() {
            return pieceCount > 0;
        }

        /** Whether every event of document {@code doc} is the thread's own: no piece open at its start or opening in it. */
        boolean allOwn(int doc) {
            int nextOfFollowing = doc + 1 < documents ? nextAtStart[doc + 1] : pieceCount;
            return openAtStart[doc] < 0 && nextAtStart[doc] == nextOfFollowing;
        }

        private void addDocument(long address) {
            if (documents == addresses.length) {
                int n = documents * 2;
                addresses = Arrays.copyOf(addresses, n);
                openAtStart = Arrays.copyOf(openAtStart, n);
                nextAtStart = Arrays.copyOf(nextAtStart, n);
            }
            addresses[documents] = address;
            documents++;
        }

        /** The cut reaches document {@code doc}: what is open at the start of each document up to it, and the next piece. */
        private void startDocumentsUpTo(int doc) {
            for (; started <= doc; started++) {
                openAtStart[started] = open;
                nextAtStart[started] = pieceCount;
            }
        }

        private int addPiece(int piece) {
            if (pieceCount == pieces.length) {
                pieces = Arrays.copyOf(pieces, Math.max(4, pieceCount * 2));
            }
            pieces[pieceCount] = piece;
            return pieceCount++;
        }
    }

    private final Map<Long, ThreadDocs> threads = new LinkedHashMap<>();
    /** Per piece: its virtual thread, its carrier's docs, its mount's tick, the document it opens in, its rank among its thread's pieces. */
    private long[] pieceThread = new long[16];
    private ThreadDocs[] pieceCarrier = new ThreadDocs[16];
    private long[] pieceTick = new long[16];
    private int[] pieceDocument = new int[16];
    private int[] pieceRank = new int[16];
    private int pieces;
    /** Per virtual thread: its pieces in their order. */
    private final Map<Long, int[]> byThread = new HashMap<>();
    /** The last queue document indexed (its Chronicle index); readers of a growing queue stop there. */
    private long lastIndex = Long.MIN_VALUE;

    /**
     * A marker, in queue order, with its carrier's document: the pieces are cut from these at
     * {@link #finish}, once every thread with batches of its own is known.
     */
    private record Mark(ThreadDocs docs, int doc, EventKind kind, long thread, long tick) {
    }

    private final List<Mark> marks = new ArrayList<>();

    /** Adds the next batch document of its thread, in queue order; {@code batch} is positioned before its events. */
    void add(long address, EventBatchReader batch) throws FormatException {
        ThreadDocs docs = threads.computeIfAbsent(batch.threadId(), ThreadDocs::new);
        docs.addDocument(address);
        int doc = docs.documents - 1;
        if (!batch.hasCommunicationIndex()) {
            return;
        }
        while (batch.nextCommunication()) {
            if (batch.kind == EventKind.VT_MOUNT || batch.kind == EventKind.VT_UNMOUNT) {
                marks.add(new Mark(docs, doc, batch.kind, batch.a, batch.tick));
            }
        }
    }

    /**
     * Whether a marker naming {@code thread} marks a virtual thread: not when that thread has batches
     * of its own. Thread ids are one across platform and virtual threads, so such a marker is damage (a
     * flipped payload) and is read as the carrier's own event, by the index and every walk alike.
     */
    private boolean marksVirtual(long thread) {
        return !threads.containsKey(thread);
    }

    /** Cuts the pieces from the markers, in queue order. */
    private void cut() {
        for (Mark m : marks) {
            ThreadDocs docs = m.docs;
            docs.startDocumentsUpTo(m.doc);
            if (!marksVirtual(m.thread)) {
                continue;
            }
            if (m.kind == EventKind.VT_MOUNT) {
                docs.open = docs.addPiece(newPiece(m.thread, docs, m.tick, m.doc));
            } else {
                if (docs.open < 0 || pieceThread[docs.pieces[docs.open]] != m.thread) {
                    docs.addPiece(newPiece(m.thread, docs, m.tick, m.doc));
                }
                docs.open = -1;
            }
        }
        for (ThreadDocs docs : threads.values()) {
            docs.startDocumentsUpTo(docs.documents - 1);
        }
        marks.clear();
    }

    /** Marks the last queue document indexed. */
    void indexedUpTo(long queueIndex) {
        lastIndex = queueIndex;
    }

    long lastIndex() {
        return lastIndex;
    }

    private int newPiece(long thread, ThreadDocs carrier, long tick, int doc) {
        if (pieces == pieceThread.length) {
            int n = pieces * 2;
            pieceThread = Arrays.copyOf(pieceThread, n);
            pieceCarrier = Arrays.copyOf(pieceCarrier, n);
            pieceTick = Arrays.copyOf(pieceTick, n);
            pieceDocument = Arrays.copyOf(pieceDocument, n);
            pieceRank = Arrays.copyOf(pieceRank, n);
        }
        pieceThread[pieces] = thread;
        pieceCarrier[pieces] = carrier;
        pieceTick[pieces] = tick;
        pieceDocument[pieces] = doc;
        return pieces++;
    }

    /** Once every document is added: cuts the pieces, and orders each virtual thread's by their mounts' ticks. */
    void finish() {
        cut();
        Map<Long, List<Integer>> lists = new HashMap<>();
        for (int p = 0; p < pieces; p++) {
            lists.computeIfAbsent(pieceThread[p], t -> new ArrayList<>()).add(p);
        }
        lists.forEach((thread, list) -> {
            list.sort((x, y) -> pieceTick[x] != pieceTick[y] ? Long.compare(pieceTick[x], pieceTick[y])
                    : Integer.compare(x, y));
            int[] order = new int[list.size()];
            for (int r = 0; r < order.length; r++) {
                order[r] = list.get(r);
                pieceRank[order[r]] = r;
            }
            byThread.put(thread, order);
        });
    }

    /** Whether the process has any virtual thread's events. */
    boolean any() {
        return pieces > 0;
    }

    /** The documents of {@code thread} if it has batches of its own, else null. */
    ThreadDocs documents(long thread) {
        return threads.get(thread);
    }

    /** The pieces of virtual thread {@code thread} in its order, or null if it is none. */
    int[] piecesOf(long thread) {
        return byThread.get(thread);
    }

    long pieceThread(int piece) {
        return pieceThread[piece];
    }

    ThreadDocs pieceCarrier(int piece) {
        return pieceCarrier[piece];
    }

    /** The carrier document (its ordinal among the carrier's) where the piece opens. */
    int pieceDocument(int piece) {
        return pieceDocument[piece];
    }

    int pieceRank(int piece) {
        return pieceRank[piece];
    }

    /**
     * Follows the pieces through one carrier document's events: {@link #owner} for each event in
     * order says which piece it belongs to. Reused across documents; allocates nothing.
     */
    final class Walk {
        private ThreadDocs carrier;
        private int open;
        private int next;

        /** Starts at document {@code doc} of {@code carrier}. */
        void start(ThreadDocs carrier, int doc) {
            this.carrier = carrier;
            int atStart = carrier.openAtStart[doc];
            this.open = atStart < 0 ? -1 : carrier.pieces[atStart];
            this.next = carrier.nextAtStart[doc];
        }

        /** The piece the event (just read from {@code batch}) belongs to, or -1 for the carrier's own. */
        int owner(EventBatchReader batch) {
            boolean marker = batch.kind == EventKind.VT_MOUNT || batch.kind == EventKind.VT_UNMOUNT;
            if (!marker || !marksVirtual(batch.a)) {
                return open;
            }
            if (batch.kind == EventKind.VT_MOUNT) {
                open = next < carrier.pieceCount ? carrier.pieces[next++] : -1;
                return open;
            }
            int piece = open;
            if (open < 0 || pieceThread[open] != batch.a) {
                piece = next < carrier.pieceCount ? carrier.pieces[next++] : -1;
            }
            open = -1;
            return piece;
        }

        /** The piece open after the events walked so far, or -1. */
        int open() {
            return open;
        }
    }
}
