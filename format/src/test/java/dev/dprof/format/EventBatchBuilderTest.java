package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.dprof.clock.SimulatedClock;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A batch rebuilt from its decoded events is the encoder's batch byte for byte, with every column
 * combination (truth, cpu), every kind, communication or not: what a reader re-encodes when it
 * hands a carrier's events to a virtual thread reads exactly as the drainer wrote it.
 */
class EventBatchBuilderTest {
    @Test
    void aRebuiltBatchIsTheEncodersByteForByte() throws FormatException {
        SimulatedClock sim = SimulatedClock.parse("rate=1.3,offset=-5000,drift-ppm=50,drift-period-s=1");
        for (SimulatedClock clock : new SimulatedClock[] {null, sim}) {
            for (boolean cpu : new boolean[] {false, true}) {
                for (boolean communicating : new boolean[] {false, true}) {
                    check(clock, cpu, communicating);
                }
            }
        }
    }

    private static void check(SimulatedClock sim, boolean withCpu, boolean communicating) throws FormatException {
        SplittableRandom random = new SplittableRandom(3);
        int n = 700;
        ByteBuffer slots = ByteBuffer.allocate(n * EventBatchEncoder.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        EventKind[] kinds = Arrays.stream(EventKind.values()).filter(k -> communicating || !k.communicates())
                .toArray(EventKind[]::new);
        long tick = 1_000_000;
        for (int i = 0; i < n; i++) {
            EventKind k = kinds[random.nextInt(kinds.length)];
            int base = i * EventBatchEncoder.SLOT_BYTES;
            tick += random.nextInt(5000);
            slots.putLong(base, tick);
            slots.putInt(base + 8, EventCodes.header(k.code, random.nextInt(1000)));
            slots.putInt(base + 12, random.nextInt(64));
            slots.putLong(base + 16, k.payloadCount > 0 ? random.nextLong() : 0);
            slots.putLong(base + 24, k.payloadCount > 1 ? random.nextLong() : 0);
        }
        ByteSink encoded = new ByteSink(64);
        EventBatchEncoder.encode(encoded, 77, slots, n, sim, withCpu);
        byte[] expected = encoded.toByteArray();

        EventBatchReader reader = new EventBatchReader().reset(expected, 1, expected.length - 1);
        EventBatchBuilder builder = new EventBatchBuilder();
        builder.start(77, reader);
        while (reader.next()) {
            builder.add(reader);
        }
        ByteSink rebuilt = new ByteSink(64);
        builder.encode(rebuilt);
        assertArrayEquals(expected, rebuilt.toByteArray(),
                "truth " + (sim != null) + ", cpu " + withCpu + ", communication " + communicating);
    }
}
