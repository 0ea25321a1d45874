package dev.dprof.format;

import dev.dprof.clock.SimulatedClock;
import java.nio.ByteBuffer;

/**
 * Encodes one thread's drained events as a compact batch (DESIGN.md "Events"): a varint
 * header, the tick as a zig-zag varint delta from the previous event, the payload the kind
 * declares. A typical region event costs 3–4 bytes.
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

    private EventBatchEncoder() {
    }

    /** Appends the batch of {@code count} slots starting at {@code slots}' index 0 to {@code out}. */
    public static void encode(ByteSink out, long threadId, ByteBuffer slots, int count,
                              SimulatedClock sim, boolean withCpu) {
        int flags = (sim != null ? FLAG_TRUTH : 0) | (withCpu ? FLAG_CPU : 0);
        out.writeByte(RecordType.BATCH);
        out.writeVarLong(threadId);
        out.writeByte(flags);
        out.writeVarLong(count);
        long prevTick = 0;
        long prevTruth = 0;
        for (int i = 0; i < count; i++) {
            int base = i * SLOT_BYTES;
            long real = slots.getLong(base);
            int header = slots.getInt(base + 8);
            long tick = sim != null ? sim.apply(real) : real;
            out.writeVarLong(header & 0xFFFF_FFFFL);
            out.writeSignedVarLong(tick - prevTick);
            prevTick = tick;
            if (sim != null) {
                out.writeSignedVarLong(real - prevTruth);
                prevTruth = real;
            }
            if (withCpu) {
                out.writeVarLong(slots.getInt(base + 12) & 0xFFFF_FFFFL);
            }
            EventKind kind = EventKind.ofCode(EventCodes.kind(header));
            int payloads = kind == null ? 2 : kind.payloadCount;
            if (payloads > 0) {
                out.writeSignedVarLong(slots.getLong(base + 16));
            }
            if (payloads > 1) {
                out.writeSignedVarLong(slots.getLong(base + 24));
            }
        }
    }
}
