package dev.dprof.consolidator.read;

import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.RecordType;
import java.util.List;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Walks the event batches of a process queue, optionally of one thread only: a stream per
 * thread is what the consolidator's k-way merge needs, since batches of different threads are
 * interleaved in drain order. Each cursor has its own tailer; a batch of another thread is
 * skipped after reading its first few bytes. After the queue come the documents recovered from
 * ring files, if any ({@link RingRecovery}).
 */
public final class BatchCursor implements AutoCloseable {
    private final ExcerptTailer tailer;
    private final long thread;
    private final RingRecovery recovery;
    private int nextRecovered;
    private final EventBatchReader events = new EventBatchReader();
    private byte[] buffer = new byte[1 << 16];

    BatchCursor(ExcerptTailer tailer, RingRecovery recovery, long thread) {
        this.tailer = tailer;
        this.recovery = recovery;
        this.thread = thread;
    }

    /**
     * Moves to the next batch (of the thread, if one was chosen).
     *
     * @return false at the end of what is complete in the queue
     * @throws FormatException if a batch is corrupt
     */
    public boolean next() throws FormatException {
        while (true) {
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
                if (thread >= 0 && leadingVarint(bytes, start + 1) != thread) {
                    continue;
                }
                if (buffer.length < length) {
                    buffer = new byte[Math.max(length, buffer.length * 2)];
                }
                bytes.read(buffer, 0, length);
            }
            events.reset(buffer, 1, length - 1);
            return true;
        }
    }

    private boolean nextRecovered() throws FormatException {
        List<byte[]> recovered = recovery.documents();
        while (nextRecovered < recovered.size()) {
            byte[] document = recovered.get(nextRecovered++);
            if (document[0] != RecordType.BATCH) {
                continue;
            }
            events.reset(document, 1, document.length - 1);
            if (thread < 0 || events.threadId() == thread) {
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
        tailer.close();
    }
}
