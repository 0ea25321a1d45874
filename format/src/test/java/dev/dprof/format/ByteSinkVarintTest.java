package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Varints as the format defines them; the unchecked puts write what the checked writes do. */
class ByteSinkVarintTest {

    /** Every length from 1 to 10 bytes, at and around each 7-bit boundary, and signed values. */
    private static List<Long> values() {
        List<Long> values = new ArrayList<>(List.of(0L, 1L, 127L, 128L, Long.MAX_VALUE, Long.MIN_VALUE, -1L));
        for (int bits = 1; bits < 64; bits++) {
            long edge = 1L << bits;
            values.add(edge - 1);
            values.add(edge);
            values.add(edge + 1);
            values.add(edge | 0x5555_5555_5555_5555L >>> (63 - bits));
        }
        return values;
    }

    /** LEB128 as the format defines it, one byte at a time. */
    private static byte[] reference(long v) {
        ByteBuffer out = ByteBuffer.allocate(10);
        while ((v & ~0x7FL) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    @Test
    void eachValueHasTheReferenceBytes() {
        for (long v : values()) {
            ByteSink sink = new ByteSink(16);
            sink.writeVarLong(v);
            assertArrayEquals(reference(v), sink.toByteArray(), "value " + v);
        }
    }

    @Test
    void putsAfterOneReserveReadBack() throws FormatException {
        List<Long> values = values();
        ByteSink sink = new ByteSink(16);
        for (long v : values) {
            sink.reserve(2 * ByteSink.MAX_VARINT_BYTES + 1);
            sink.putVarLong(v);
            sink.putSignedVarLong(-v);
            sink.putByte(0x5A);
        }
        ByteSource in = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
        for (long v : values) {
            assertEquals(v, in.readVarLong("value"));
            assertEquals(-v, in.readSignedVarLong("negated"));
            assertEquals(0x5A, in.readByte("marker"));
        }
        assertEquals(0, in.remaining());
    }
}
