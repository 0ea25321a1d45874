package dev.dprof.format;

/**
 * A cursor over one encoded batch (see {@link EventBatchEncoder}); reused across batches so
 * reading allocates nothing per event. Fields describe the current event after {@link #next()}.
 */
public final class EventBatchReader {
    public static final long NO_TRUTH = Long.MIN_VALUE;

    private ByteSource in;
    private int flags;
    private int remaining;
    private long threadId;

    public EventKind kind;
    public int region;
    public long tick;
    /** The real tick under a simulated clock, else {@link #NO_TRUTH}. */
    public long truth;
    /** The CPU under {@code rdtscp}, else -1. */
    public int cpu;
    public long a;
    public long b;

    /** Starts reading the batch body (after its type byte). */
    public EventBatchReader reset(ByteSource source) throws FormatException {
        in = source;
        threadId = in.readVarLong("batch thread id");
        flags = in.readByte("batch flags");
        if ((flags & ~(EventBatchEncoder.FLAG_TRUTH | EventBatchEncoder.FLAG_CPU)) != 0) {
            throw new FormatException("unknown batch flags " + flags);
        }
        remaining = in.readVarInt("batch event count", Integer.MAX_VALUE);
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

    public boolean hasTruth() {
        return (flags & EventBatchEncoder.FLAG_TRUTH) != 0;
    }

    /** Moves to the next event; {@code false} at the end of the batch. */
    public boolean next() throws FormatException {
        if (remaining == 0) {
            return false;
        }
        remaining--;
        long header = in.readVarLong("event header");
        int code = (int) (header & EventCodes.KIND_MASK);
        kind = EventKind.ofCode(code);
        if (kind == null) {
            throw new FormatException("unknown event kind " + code);
        }
        region = (int) (header >>> EventCodes.REGION_SHIFT);
        tick += in.readSignedVarLong("event tick");
        if ((flags & EventBatchEncoder.FLAG_TRUTH) != 0) {
            truth += in.readSignedVarLong("event truth");
        }
        if ((flags & EventBatchEncoder.FLAG_CPU) != 0) {
            cpu = in.readVarInt("event cpu", Integer.MAX_VALUE);
        }
        a = kind.payloadCount > 0 ? in.readSignedVarLong("event payload") : 0;
        b = kind.payloadCount > 1 ? in.readSignedVarLong("event payload") : 0;
        return true;
    }
}
