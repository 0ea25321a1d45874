package dev.dprof.consolidator.read;

import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchBuilder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.RecordType;
import java.util.List;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Walks the event batches of one thread of a process queue: a stream per thread is what the
 * consolidator's k-way merge needs, since batches of different threads are interleaved in drain
 * order. Each cursor has its own tailer; a batch of another thread is
 * skipped after reading its first few bytes. After the queue come the documents recovered from
 * ring files, if any ({@link RingRecovery}).
 *
 * <p>In a process whose carriers ran virtual threads ({@link VirtualThreadSplit}) a thread's
 * cursor reads its documents by their index instead: a carrier's yields the carrier's own
 * events, a virtual thread's its pieces, from whichever carriers, in its order — the same
 * events in the same order as {@link ProcessQueue#read} hands over for the thread.
 */
public final class BatchCursor implements AutoCloseable {
    private final ExcerptTailer tailer;
    private final long thread;
    private final RingRecovery recovery;
    private int nextRecovered;
    private boolean queueUnreadable;
    private final EventBatchReader events = new EventBatchReader();
    private byte[] buffer;

    /** The split reading (null otherwise): the queue to fetch from, the index, and where the cursor is. */
    private final ProcessQueue queue;
    private final VirtualThreadSplit split;
    private final VirtualThreadSplit.ThreadDocs docs;
    private final int[] pieces;
    private VirtualThreadSplit.Walk walk;
    private EventBatchReader source;
    private EventBatchBuilder builder;
    private ByteSink sink;
    private final int[] length = new int[1];
    /** The next own document; or the rank of the current piece and its next document (-1: its first). */
    private int position;
    private int pieceDocument = -1;

    BatchCursor(ExcerptTailer tailer, RingRecovery recovery, long thread) {
        this.tailer = tailer;
        this.recovery = recovery;
        this.thread = thread;
        this.buffer = new byte[1 << 16];
        this.queue = null;
        this.split = null;
        this.docs = null;
        this.pieces = null;
    }

    private BatchCursor(ProcessQueue queue, VirtualThreadSplit split, long thread) {
        this.tailer = null;
        this.recovery = null;
        this.thread = thread;
        this.queue = queue;
        this.split = split;
        this.docs = split.documents(thread);
        this.pieces = docs == null ? split.piecesOf(thread) : null;
        this.buffer = new byte[256];
    }

    /** The cursor of one thread of a process whose carriers ran virtual threads. */
    static BatchCursor split(ProcessQueue queue, VirtualThreadSplit split, long thread) {
        return new BatchCursor(queue, split, thread);
    }

    /**
     * Moves to the next batch of the thread.
     *
     * @return false at the end of what is complete in the queue
     * @throws FormatException if a batch is corrupt
     */
    public boolean next() throws FormatException {
        if (split != null) {
            return pieces != null ? nextPiece() : nextOwn();
        }
        while (!queueUnreadable) {
            int length;
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent() || dc.index() > recovery.lastIndex()) {
                    return nextRecovered();
                }
                Bytes<?> bytes = dc.wire().bytes();
                long start = bytes.readPosition();
                length = (int) bytes.readRemaining();
                if (length == 0 || bytes.readUnsignedByte(start) != RecordType.BATCH) {
                    continue;
                }
                if (leadingVarint(bytes, start + 1) != thread) {
                    continue;
                }
                if (buffer.length < length) {
                    buffer = new byte[Math.max(length, buffer.length * 2)];
                }
                bytes.read(buffer, 0, length);
            } catch (RuntimeException | InternalError e) {
                // ProcessQueue#read met the same document and reported it: the queue ends here for every reader.
                queueUnreadable = true;
                break;
            }
            events.reset(buffer, 1, length - 1);
            return true;
        }
        return nextRecovered();
    }

    /** The thread's own documents, a carrier's with its virtual threads' pieces left out. */
    private boolean nextOwn() throws FormatException {
        while (docs != null && position < docs.documents) {
            int doc = position++;
            byte[] document = fetch(docs.addresses[doc]);
            if (!docs.isCarrier() || docs.allOwn(doc)) {
                events.reset(document, 1, length[0] - 1);
                return true;
            }
            EventBatchReader in = source().reset(document, 1, length[0] - 1);
            walk.start(docs, doc);
            builder.start(thread, in);
            while (in.next()) {
                if (walk.owner(in) < 0) {
                    builder.add(in);
                }
            }
            if (builder.count() > 0) {
                return built();
            }
        }
        return false;
    }

    /** A virtual thread's pieces in its order, each from its mount to its unmount in its carrier's documents. */
    private boolean nextPiece() throws FormatException {
        while (position < pieces.length) {
            int piece = pieces[position];
            VirtualThreadSplit.ThreadDocs carrier = split.pieceCarrier(piece);
            int doc = pieceDocument < 0 ? split.pieceDocument(piece) : pieceDocument;
            byte[] document = fetch(carrier.addresses[doc]);
            EventBatchReader in = source().reset(document, 1, length[0] - 1);
            walk.start(carrier, doc);
            builder.start(thread, in);
            while (in.next()) {
                if (walk.owner(in) == piece) {
                    builder.add(in);
                }
            }
            if (walk.open() == piece && doc + 1 < carrier.documents) {
                pieceDocument = doc + 1;
            } else {
                pieceDocument = -1;
                position++;
            }
            if (builder.count() > 0) {
                return built();
            }
        }
        return false;
    }

    private EventBatchReader source() {
        if (source == null) {
            source = new EventBatchReader();
            builder = new EventBatchBuilder();
            sink = new ByteSink(256);
            walk = split.new Walk();
        }
        return source;
    }

    private boolean built() throws FormatException {
        sink.clear();
        builder.encode(sink);
        events.reset(sink.array(), 1, sink.size() - 1);
        return true;
    }

    private byte[] fetch(long address) throws FormatException {
        byte[] document = queue.fetch(address, buffer, length);
        if (address >= 0) {
            buffer = document;
        }
        return document;
    }

    private boolean nextRecovered() throws FormatException {
        List<byte[]> recovered = recovery.documents();
        while (nextRecovered < recovered.size()) {
            byte[] document = recovered.get(nextRecovered++);
            if (document[0] != RecordType.BATCH) {
                continue;
            }
            events.reset(document, 1, document.length - 1);
            if (events.threadId() == thread) {
                return true;
            }
        }
        return false;
    }

    /** The current batch, positioned before its first event. */
    public EventBatchReader events() {
        return events;
    }

    private static long leadingVarint(Bytes<?> bytes, long at) {
        long result = 0;
        long limit = bytes.readLimit();
        for (int shift = 0; shift < 64 && at < limit; shift += 7) {
            int b = bytes.readUnsignedByte(at++);
            result |= (long) (b & 0x7F) << shift;
            if (b < 0x80) {
                return result;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        if (tailer != null) {
            tailer.close();
        }
    }
}
