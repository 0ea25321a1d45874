package dev.dprof.format;

import dev.dprof.clock.SimulatedClock;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Encodes one thread's drained events as a compact batch (DESIGN.md "Events"): a varint
 * header, the tick as a zig-zag varint delta from the previous event, the payload the kind
 * declares. A typical region event costs 3–4 bytes. Each communicating event is written once, in
 * the index at the batch's head (docs/FORMAT.md, "`B` batch", format version 4), and marked by one
 * byte among the events.
 *
 * <p>Input slots are the agent's ring layout, {@link #SLOT_BYTES} each, little endian:
 * {@code [tick:8][header:4][cpu:4][a:8][b:8]}. With a simulated clock the stored tick is
 * {@code sim(tick)} and the real tick is kept beside it as the truth, so every accuracy claim
 * can be checked.
 */
public final class EventBatchEncoder {
    public static final int SLOT_BYTES = 32;
    public static final int FLAG_TRUTH = 1;
    public static final int FLAG_CPU = 2;
    /**
     * The batch holds no event that {@link EventKind#communicates()}: the consolidator's first pass,
     * which only collects those, skips the batch without decoding it.
     */
    public static final int FLAG_NO_COMMUNICATION = 4;
    /**
     * The batch begins with an index of its communicating events (kind, region, absolute tick,
     * payload), so the consolidator's first pass reads those without decoding the others.
     */
    public static final int FLAG_COMMUNICATION_INDEX = 8;
    /**
     * Format version 4: each communicating event is in the index only, its tick a delta from the
     * previous entry's, and among the events a {@link #MARKER} (then the truth and cpu columns) stands
     * where it was. Without the bit (versions 1 to 3) the index, if any, repeats the events, its ticks
     * absolute.
     */
    public static final int FLAG_MARKED = 16;
    /** The header, in the events of a {@link #FLAG_MARKED} batch, of an event that is the index's next entry. */
    public static final int MARKER = 0;

    private EventBatchEncoder() {
    }

    /** Appends the batch of {@code count} slots starting at {@code slots}' index 0 to {@code out}. */
    public static void encode(ByteSink out, long threadId, ByteBuffer slots, int count,
                              SimulatedClock sim, boolean withCpu) {
        int columns = (sim != null ? FLAG_TRUTH : 0) | (withCpu ? FLAG_CPU : 0);
        out.writeByte(RecordType.BATCH);
        out.writeVarLong(threadId);
        int flagsAt = out.size();
        out.writeByte(columns);
        out.writeVarLong(count);
        boolean communicates = writeCommunicationIndex(out, slots, count, sim);
        out.array()[flagsAt] |= communicates ? FLAG_COMMUNICATION_INDEX | FLAG_MARKED : FLAG_NO_COMMUNICATION;
        if (columns == 0) {
            encodeEvents(out, slots, count);
        } else {
            encodeEvents(out, slots, count, sim, withCpu);
        }
    }

    /**
     * {@code [length:int32 LE][entries: header, tick, payloads]}, one entry per communicating slot,
     * the tick on the stored clock as a zig-zag delta from the previous entry's (the first from 0),
     * the length counting the entries, so a reader of the events finds where they begin. One pass
     * over the slots; nothing is left when no slot communicates. Returns whether one did.
     */
    private static boolean writeCommunicationIndex(ByteSink out, ByteBuffer slots, int count, SimulatedClock sim) {
        int lengthAt = out.size();
        out.reserve(4);
        out.skip(4);
        long prevTick = 0;
        // As the events' loop: room for a chunk at a time, one capacity check per chunk instead of one
        // per value (the index was a third of the drainer's samples with every event a handoff).
        for (int i = 0; i < count; ) {
            int end = Math.min(count, i + CHUNK_EVENTS);
            byte[] b = out.reserve((end - i) * MAX_EVENT_BYTES);
            int start = out.size();
            int pos = start;
            for (; i < end; i++) {
                int base = i * SLOT_BYTES;
                int header = slots.getInt(base + 8);
                int code = EventCodes.kind(header) & 0xFF;
                if (!COMMUNICATES[code]) {
                    continue;
                }
                long real = slots.getLong(base);
                long tick = sim != null ? sim.apply(real) : real;
                pos = ByteSink.putVarLong(b, pos, header & 0xFFFF_FFFFL);
                pos = ByteSink.putSignedVarLong(b, pos, tick - prevTick);
                prevTick = tick;
                pos = putPayloads(b, pos, slots, base, PAYLOADS[code]);
            }
            out.skip(pos - start);
        }
        int length = out.size() - lengthAt - 4;
        if (length == 0) {
            out.truncate(lengthAt);
            return false;
        }
        byte[] b = out.array();
        for (int k = 0; k < 4; k++) {
            b[lengthAt + k] = (byte) (length >>> (8 * k));
        }
        return true;
    }

    /** The general loop (truth or cpu columns). */
    private static void encodeEvents(ByteSink out, ByteBuffer slots, int count, SimulatedClock sim,
                                     boolean withCpu) {
        long prevTick = 0;
        long prevTruth = 0;
        for (int i = 0; i < count; i++) {
            int base = i * SLOT_BYTES;
            long real = slots.getLong(base);
            int header = slots.getInt(base + 8);
            long tick = sim != null ? sim.apply(real) : real;
            int code = EventCodes.kind(header) & 0xFF;
            int payloads = LAYOUT[code];
            if (payloads == IN_INDEX) {
                out.writeByte(MARKER);
            } else {
                out.writeVarLong(header & 0xFFFF_FFFFL);
                out.writeSignedVarLong(tick - prevTick);
            }
            prevTick = tick;
            if (sim != null) {
                out.writeSignedVarLong(real - prevTruth);
                prevTruth = real;
            }
            if (withCpu) {
                out.writeVarLong(slots.getInt(base + 12) & 0xFFFF_FFFFL);
            }
            if (payloads > 0) {
                out.writeSignedVarLong(slots.getLong(base + 16));
            }
            if (payloads > 1) {
                out.writeSignedVarLong(slots.getLong(base + 24));
            }
        }
    }

    /**
     * The events of the common batch (real clock, no cpu), byte for byte what the general loop
     * writes, with one capacity check per chunk of events instead of one per value: the drainer's
     * hot loop (3.1 instead of 3.8 ns per ENTER/EXIT event, measured on the build host).
     */
    private static void encodeEvents(ByteSink out, ByteBuffer slots, int count) {
        long prevTick = 0;
        for (int i = 0; i < count; ) {
            // Room for a chunk at a time, so the buffer grows only as far as the batch needs.
            int end = Math.min(count, i + CHUNK_EVENTS);
            byte[] b = out.reserve((end - i) * MAX_EVENT_BYTES);
            int start = out.size();
            int pos = start;
            for (; i < end; i++) {
                int base = i * SLOT_BYTES;
                long tick = slots.getLong(base);
                int header = slots.getInt(base + 8);
                int payloads = LAYOUT[EventCodes.kind(header) & 0xFF];
                long delta = tick - prevTick;
                prevTick = tick;
                if (payloads == IN_INDEX) {
                    b[pos++] = MARKER;
                    continue;
                }
                pos = ByteSink.putVarLong(b, pos, header & 0xFFFF_FFFFL);
                pos = ByteSink.putSignedVarLong(b, pos, delta);
                pos = putPayloads(b, pos, slots, base, payloads);
            }
            out.skip(pos - start);
        }
    }

    /** The slot's first {@code payloads} payloads (its kind's count), zig-zag, within room {@link ByteSink#reserve} made. */
    private static int putPayloads(byte[] b, int pos, ByteBuffer slots, int base, int payloads) {
        if (payloads > 0) {
            pos = ByteSink.putSignedVarLong(b, pos, slots.getLong(base + 16));
            if (payloads > 1) {
                pos = ByteSink.putSignedVarLong(b, pos, slots.getLong(base + 24));
            }
        }
        return pos;
    }

    /** Events per capacity check of {@link #encodeEvents}. */
    private static final int CHUNK_EVENTS = 256;
    /** The most bytes one event takes without truth or cpu: header (5), tick and two payloads (10 each). */
    private static final int MAX_EVENT_BYTES = 5 + 3 * 10;

    /** Payload values per kind code; 2 for codes this version does not know, as the reader expects. */
    private static final byte[] PAYLOADS = new byte[256];
    /** Per kind code: whether it communicates; true for codes this version does not know, to be safe. */
    private static final boolean[] COMMUNICATES = new boolean[256];
    /** {@link #LAYOUT}'s value for a kind whose events are in the index only. */
    private static final byte IN_INDEX = -1;
    /**
     * Per kind code, what the events' loops write: {@link #IN_INDEX} for a kind that communicates (a
     * marker), else its payload values. One table load per event, as before the marker existed.
     */
    private static final byte[] LAYOUT = new byte[256];

    static {
        Arrays.fill(PAYLOADS, (byte) 2);
        Arrays.fill(COMMUNICATES, true);
        for (EventKind k : EventKind.values()) {
            PAYLOADS[k.code] = (byte) k.payloadCount;
            COMMUNICATES[k.code] = k.communicates();
        }
        for (int code = 0; code < 256; code++) {
            LAYOUT[code] = COMMUNICATES[code] ? IN_INDEX : PAYLOADS[code];
        }
    }
}
