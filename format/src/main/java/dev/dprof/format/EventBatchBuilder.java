package dev.dprof.format;

import java.util.Arrays;

/**
 * A batch made of events already decoded, byte for byte as {@link EventBatchEncoder} writes one
 * (the layout of format version 4, whatever the source batch's): the same columns, the
 * communication index, the ticks as the source batch stored them (a simulated clock is not
 * applied again). For readers that hand some of a batch's events to
 * another thread, such as a carrier's events that are a virtual thread's (docs/FORMAT.md, kinds
 * 17 and 18).
 *
 * <p>Implementation notes: one instance is reused; its columns grow to the largest batch seen and
 * nothing is allocated per event.
 */
public final class EventBatchBuilder {
    private long threadId;
    private boolean truth;
    private boolean cpu;
    private int count;
    private int[] headers = new int[64];
    private long[] ticks = new long[64];
    private long[] truths = new long[64];
    private int[] cpus = new int[64];
    private long[] as = new long[64];
    private long[] bs = new long[64];

    /** Starts a batch of {@code threadId} with the columns of {@code source} (truth, cpu). */
    public void start(long threadId, EventBatchReader source) {
        this.threadId = threadId;
        this.truth = source.hasTruth();
        this.cpu = source.hasCpu();
        this.count = 0;
    }

    /** Adds the event {@code source} is on ({@link EventBatchReader#next}). */
    public void add(EventBatchReader source) {
        if (count == headers.length) {
            int n = count * 2;
            headers = Arrays.copyOf(headers, n);
            ticks = Arrays.copyOf(ticks, n);
            truths = Arrays.copyOf(truths, n);
            cpus = Arrays.copyOf(cpus, n);
            as = Arrays.copyOf(as, n);
            bs = Arrays.copyOf(bs, n);
        }
        headers[count] = EventCodes.header(source.kind.code, source.region);
        ticks[count] = source.tick;
        truths[count] = source.truth;
        cpus[count] = source.cpu;
        as[count] = source.a;
        bs[count] = source.b;
        count++;
    }

    public int count() {
        return count;
    }

    public long threadId() {
        return threadId;
    }

    /** Appends the batch, as a whole record (its type byte first), to {@code out}. */
    public void encode(ByteSink out) {
        encode(out, true);
    }

    /**
     * Appends the batch as {@link #encode(ByteSink)} does, or, when not {@code marked}, in the layout
     * format versions 1 to 3 wrote (each communicating event in full among the events too, the
     * index's ticks absolute), for generators of older queues.
     */
    public void encode(ByteSink out, boolean marked) {
        int columns = (truth ? EventBatchEncoder.FLAG_TRUTH : 0) | (cpu ? EventBatchEncoder.FLAG_CPU : 0);
        out.writeByte(RecordType.BATCH);
        out.writeVarLong(threadId);
        int flagsAt = out.size();
        out.writeByte(columns);
        out.writeVarLong(count);
        int lengthAt = out.size();
        out.reserve(4);
        out.skip(4);
        long prevIndexTick = 0;
        for (int i = 0; i < count; i++) {
            EventKind kind = EventKind.ofCode(EventCodes.kind(headers[i]));
            if (kind.communicates()) {
                out.writeVarLong(headers[i] & 0xFFFF_FFFFL);
                out.writeSignedVarLong(marked ? ticks[i] - prevIndexTick : ticks[i]);
                prevIndexTick = ticks[i];
                payloads(out, kind, i);
            }
        }
        int length = out.size() - lengthAt - 4;
        if (length == 0) {
            out.truncate(lengthAt);
            out.array()[flagsAt] |= EventBatchEncoder.FLAG_NO_COMMUNICATION;
        } else {
            byte[] b = out.array();
            for (int k = 0; k < 4; k++) {
                b[lengthAt + k] = (byte) (length >>> (8 * k));
            }
            b[flagsAt] |= EventBatchEncoder.FLAG_COMMUNICATION_INDEX | (marked ? EventBatchEncoder.FLAG_MARKED : 0);
        }
        long prevTick = 0;
        long prevTruth = 0;
        for (int i = 0; i < count; i++) {
            EventKind kind = EventKind.ofCode(EventCodes.kind(headers[i]));
            boolean inIndex = marked && kind.communicates();
            if (inIndex) {
                out.writeByte(EventBatchEncoder.MARKER);
            } else {
                out.writeVarLong(headers[i] & 0xFFFF_FFFFL);
                out.writeSignedVarLong(ticks[i] - prevTick);
            }
            prevTick = ticks[i];
            if (truth) {
                out.writeSignedVarLong(truths[i] - prevTruth);
                prevTruth = truths[i];
            }
            if (cpu) {
                out.writeVarLong(cpus[i] & 0xFFFF_FFFFL);
            }
            if (!inIndex) {
                payloads(out, kind, i);
            }
        }
    }

    private void payloads(ByteSink out, EventKind kind, int i) {
        if (kind.payloadCount > 0) {
            out.writeSignedVarLong(as[i]);
        }
        if (kind.payloadCount > 1) {
            out.writeSignedVarLong(bs[i]);
        }
    }
}
