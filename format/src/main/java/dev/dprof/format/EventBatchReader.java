package dev.dprof.format;

import java.nio.ByteBuffer;

/**
 * A cursor over one encoded batch (see {@link EventBatchEncoder}); reused across batches so
 * reading allocates nothing per event. Fields describe the current event after {@link #next()}.
 *
 * <p>Implementation notes: the consolidator decodes every event of a trace through
 * {@link #next()} twice, so it reads the batch from a {@code byte[]} with the position in a
 * field, not through a {@link ByteBuffer}: each varint byte then costs one array load and one
 * comparison with the batch's end. A batch that ends inside an event is still a
 * {@link FormatException} naming what was being read.
 *
 * <p>Two cursors run over the communication index: {@link #nextCommunication} (the first pass,
 * which reads nothing else) and, in a batch of format version 4 ({@link EventBatchEncoder#FLAG_MARKED}),
 * the one {@link #next} follows at each marker, where that event's kind, region, tick and payloads
 * are. Each keeps its own running tick, since version 4 stores an entry's tick as a delta.
 */
public final class EventBatchReader {
    public static final long NO_TRUTH = Long.MIN_VALUE;

    private static final int COLUMNS = EventBatchEncoder.FLAG_TRUTH | EventBatchEncoder.FLAG_CPU;

    private byte[] bytes = new byte[0];
    private int position;
    private int limit;
    private int flags;
    private int bodyLength;
    private int remaining;
    private long threadId;
    /** The last event's tick, kept apart from {@link #tick}, which an index entry overwrites. */
    private long eventTick;
    /** The communication index: where its next entry starts, and where it ends. */
    private int indexPosition;
    private int indexEnd;
    /** The index's entries' ticks are deltas and the events mark where each entry stands (version 4). */
    private boolean marked;
    /** The tick of the entry {@link #nextCommunication} read last (version 4's deltas start from it). */
    private long indexTick;
    /** The entry the events' next marker stands for, and the tick of the one before it. */
    private int markPosition;
    private long markTick;

    public EventKind kind;
    public int region;
    public long tick;
    /** The real tick under a simulated clock, else {@link #NO_TRUTH}. */
    public long truth;
    /** The CPU under {@code rdtscp}, else -1. */
    public int cpu;
    public long a;
    public long b;

    /** Starts reading the batch body (after its type byte): the rest of {@code source}. */
    public EventBatchReader reset(ByteSource source) throws FormatException {
        ByteBuffer buffer = source.buffer();
        int length = buffer.remaining();
        if (buffer.hasArray()) {
            int offset = buffer.arrayOffset() + buffer.position();
            buffer.position(buffer.limit()); // the batch is the rest of the record
            return reset(buffer.array(), offset, length);
        }
        byte[] copy = new byte[length];
        buffer.get(copy);
        return reset(copy, 0, length);
    }

    /** Starts reading the batch body (after its type byte) held in {@code length} bytes from {@code offset}. */
    public EventBatchReader reset(byte[] body, int offset, int length) throws FormatException {
        bytes = body;
        position = offset;
        limit = offset + length;
        bodyLength = length;
        threadId = varLong("batch thread id");
        if (position >= limit) {
            throw new FormatException("truncated while reading batch flags");
        }
        flags = bytes[position++] & 0xFF;
        if ((flags & ~(EventBatchEncoder.FLAG_TRUTH | EventBatchEncoder.FLAG_CPU
                | EventBatchEncoder.FLAG_NO_COMMUNICATION | EventBatchEncoder.FLAG_COMMUNICATION_INDEX
                | EventBatchEncoder.FLAG_MARKED)) != 0) {
            throw new FormatException("unknown batch flags " + flags);
        }
        long count = varLong("batch event count");
        if (count < 0 || count > Integer.MAX_VALUE) {
            throw new FormatException("batch event count out of range: " + count);
        }
        remaining = (int) count;
        eventTick = 0;
        indexPosition = 0;
        indexEnd = 0;
        marked = (flags & EventBatchEncoder.FLAG_MARKED) != 0;
        indexTick = 0;
        markTick = 0;
        if ((flags & EventBatchEncoder.FLAG_COMMUNICATION_INDEX) != 0) {
            if (limit - position < 4) {
                throw new FormatException("truncated while reading the communication index's length");
            }
            int indexBytes = (bytes[position] & 0xFF) | (bytes[position + 1] & 0xFF) << 8
                    | (bytes[position + 2] & 0xFF) << 16 | (bytes[position + 3] & 0xFF) << 24;
            position += 4;
            if (indexBytes < 0 || indexBytes > limit - position) {
                throw new FormatException("communication index of " + indexBytes + " bytes in a batch of "
                        + (limit - position) + " more");
            }
            indexPosition = position;
            indexEnd = position + indexBytes;
            position = indexEnd;
        }
        markPosition = indexPosition;
        tick = 0;
        truth = (flags & EventBatchEncoder.FLAG_TRUTH) != 0 ? 0 : NO_TRUTH;
        cpu = -1;
        return this;
    }

    public long threadId() {
        return threadId;
    }

    public int count() {
        return remaining;
    }

    /** The batch's bytes after its type byte: what it takes in the queue, for measuring the encoding. */
    public int length() {
        return bodyLength;
    }

    public boolean hasTruth() {
        return (flags & EventBatchEncoder.FLAG_TRUTH) != 0;
    }

    public boolean hasCpu() {
        return (flags & EventBatchEncoder.FLAG_CPU) != 0;
    }

    /** Whether the writer said the batch holds no event that {@link EventKind#communicates()}. */
    public boolean holdsNoCommunication() {
        return (flags & EventBatchEncoder.FLAG_NO_COMMUNICATION) != 0;
    }

    /** Whether the batch begins with an index of its communicating events ({@link #nextCommunication}). */
    public boolean hasCommunicationIndex() {
        return (flags & EventBatchEncoder.FLAG_COMMUNICATION_INDEX) != 0;
    }

    /** Whether the batch has the layout of format version 4: each communicating event in the index only. */
    public boolean isMarked() {
        return marked;
    }

    /**
     * Moves to the next entry of the communication index: {@link #kind}, {@link #region},
     * {@link #tick} (on the stored clock) and the payloads describe it, {@link #truth} and
     * {@link #cpu} do not. {@code false} after the last. Independent of {@link #next}.
     */
    public boolean nextCommunication() throws FormatException {
        if (indexPosition >= indexEnd) {
            return false;
        }
        indexPosition = entry(indexPosition, indexTick);
        indexTick = tick;
        return true;
    }

    /**
     * Reads the index entry at {@code at} into {@link #kind}, {@link #region}, {@link #tick} (absolute:
     * a version 4 entry's delta added to {@code previousTick}) and the payloads; returns where the next
     * entry starts. The events' position is left as it was.
     */
    private int entry(int at, long previousTick) throws FormatException {
        int events = position;
        int eventsLimit = limit;
        position = at;
        limit = indexEnd;
        try {
            long header = varLong("communication index header");
            int code = (int) (header & EventCodes.KIND_MASK);
            kind = EventKind.ofCode(code);
            if (kind == null || !kind.communicates()) {
                throw new FormatException("communication index entry of kind " + code);
            }
            region = (int) (header >>> EventCodes.REGION_SHIFT);
            long t = signedVarLong("communication index tick");
            tick = marked ? previousTick + t : t;
            int payload = kind.payloadCount;
            a = payload > 0 ? signedVarLong("communication index payload") : 0;
            b = payload > 1 ? signedVarLong("communication index payload") : 0;
            return position;
        } finally {
            position = events;
            limit = eventsLimit;
        }
    }

    /** Moves to the next event; {@code false} at the end of the batch. */
    public boolean next() throws FormatException {
        if (remaining == 0) {
            return false;
        }
        remaining--;
        long header = varLong("event header");
        boolean inIndex = header == EventBatchEncoder.MARKER && marked;
        if (inIndex) {
            if (markPosition >= indexEnd) {
                throw new FormatException("an event marks an entry past the communication index's last");
            }
            markPosition = entry(markPosition, markTick);
            markTick = tick;
            eventTick = tick;
        } else {
            int code = (int) (header & EventCodes.KIND_MASK);
            kind = EventKind.ofCode(code);
            if (kind == null) {
                throw new FormatException("unknown event kind " + code);
            }
            region = (int) (header >>> EventCodes.REGION_SHIFT);
            eventTick += signedVarLong("event tick");
            tick = eventTick;
        }
        if ((flags & COLUMNS) != 0) {
            if ((flags & EventBatchEncoder.FLAG_TRUTH) != 0) {
                truth += signedVarLong("event truth");
            }
            if ((flags & EventBatchEncoder.FLAG_CPU) != 0) {
                long c = varLong("event cpu");
                if (c < 0 || c > Integer.MAX_VALUE) {
                    throw new FormatException("event cpu out of range: " + c);
                }
                cpu = (int) c;
            }
        }
        if (!inIndex) {
            int payload = kind.payloadCount;
            a = payload > 0 ? signedVarLong("event payload") : 0;
            b = payload > 1 ? signedVarLong("event payload") : 0;
        }
        if (remaining == 0 && markPosition != indexEnd && marked) {
            // An entry no event stands for would give the first pass a communication the events lack.
            throw new FormatException("the communication index holds entries no event marks");
        }
        return true;
    }

    private long signedVarLong(String what) throws FormatException {
        long v = varLong(what);
        return (v >>> 1) ^ -(v & 1);
    }

    private long varLong(String what) throws FormatException {
        byte[] in = bytes;
        int p = position;
        int end = limit;
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= end) {
                throw new FormatException("truncated while reading " + what);
            }
            int b = in[p++];
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                position = p;
                return result;
            }
        }
        throw new FormatException("malformed varint in " + what);
    }
}
