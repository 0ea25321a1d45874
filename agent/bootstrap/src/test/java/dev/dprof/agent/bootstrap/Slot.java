package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;

import java.nio.ByteBuffer;

/** One decoded slot, for assertions. */
record Slot(long tick, int header, int cpu, long a, long b) {
    static Slot read(ByteBuffer slots, int index) {
        int o = index * Rings.SLOT_BYTES;
        return new Slot(slots.getLong(o), slots.getInt(o + 8), slots.getInt(o + 12), slots.getLong(o + 16), slots.getLong(o + 24));
    }

    int kind() {
        return EventCodes.kind(header);
    }

    int region() {
        return EventCodes.region(header);
    }
}
