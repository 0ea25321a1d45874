package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class CollectiveShapeTest {

    @Test
    void everyFlavourRoundTripsThroughABatch() throws FormatException {
        CollectiveShape[] shapes = {
            new CollectiveShape(CollectiveFlavour.N_TO_N, 8, 0, 0),
            new CollectiveShape(CollectiveFlavour.ONE_TO_N, 4, 3, 0),
            new CollectiveShape(CollectiveFlavour.N_TO_ONE, 4, 2, 2),
            new CollectiveShape(CollectiveFlavour.SCAN, 5, 4, 0),
            new CollectiveShape(CollectiveFlavour.EXSCAN, EventCodes.SHAPE_FIELD_MAX, EventCodes.SHAPE_FIELD_MAX,
                    EventCodes.SHAPE_FIELD_MAX),
        };
        int n = shapes.length * 2;
        ByteBuffer slots = ByteBuffer.allocateDirect(n * EventBatchEncoder.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            int base = i * EventBatchEncoder.SLOT_BYTES;
            slots.putLong(base, 1000 + i);
            slots.putInt(base + 8, EventCodes.header(i % 2 == 0 ? EventCodes.BARRIER_ENTER : EventCodes.BARRIER_EXIT, 3));
            slots.putLong(base + 16, -77 + i / 2);
            slots.putLong(base + 24, shapes[i / 2].pack());
        }
        ByteSink sink = new ByteSink(16);
        EventBatchEncoder.encode(sink, 9, slots, n, null, false);
        ByteSource in = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
        assertEquals(RecordType.BATCH, in.readByte("type"));
        EventBatchReader reader = new EventBatchReader().reset(in);
        for (int i = 0; i < n; i++) {
            assertTrue(reader.next());
            assertEquals(i % 2 == 0 ? EventKind.BARRIER_ENTER : EventKind.BARRIER_EXIT, reader.kind);
            assertEquals(-77 + i / 2, reader.a);
            assertEquals(shapes[i / 2], CollectiveShape.unpack(reader.b));
        }
        assertFalse(reader.next());
    }

    @Test
    void aVersionOnePayloadIsAnNToNBarrierOfItsParticipants() {
        assertEquals(CollectiveShape.barrier(12), CollectiveShape.unpack(12));
        assertEquals(12, CollectiveShape.pack(EventCodes.FLAVOUR_N_TO_N, 12, 0, 0));
    }

    @Test
    void aValueOutOfRangePacksAsInvalid() {
        assertNull(CollectiveShape.unpack(CollectiveShape.pack(EventCodes.FLAVOUR_SCAN, 4, -1, 0)).flavour());
        assertNull(CollectiveShape.flavourOf(
                CollectiveShape.pack(EventCodes.FLAVOUR_ONE_TO_N, EventCodes.SHAPE_FIELD_MAX + 1, 0, 0)));
        assertEquals("invalid shape", CollectiveShape.unpack(CollectiveShape.pack(99, 4, 0, 0)).toString());
    }

    @Test
    void theFlavoursOrderEntersBeforeExitsAsBeckerSection4Says() {
        // enter rank, exit rank, root 1
        assertTrue(CollectiveFlavour.N_TO_N.precedes(3, 0, 1));
        assertTrue(CollectiveFlavour.ONE_TO_N.precedes(1, 3, 1));
        assertFalse(CollectiveFlavour.ONE_TO_N.precedes(2, 3, 1));
        assertTrue(CollectiveFlavour.N_TO_ONE.precedes(3, 1, 1));
        assertFalse(CollectiveFlavour.N_TO_ONE.precedes(1, 3, 1));
        assertTrue(CollectiveFlavour.SCAN.precedes(2, 2, 0));
        assertFalse(CollectiveFlavour.SCAN.precedes(3, 2, 0));
        assertFalse(CollectiveFlavour.EXSCAN.precedes(2, 2, 0));
        assertTrue(CollectiveFlavour.EXSCAN.precedes(1, 2, 0));
    }
}
