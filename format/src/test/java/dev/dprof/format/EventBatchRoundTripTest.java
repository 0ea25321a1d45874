package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.clock.SimulatedClock;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EventBatchRoundTripTest {

    private static ByteBuffer slots(long[] ticks, int[] headers, long[] a, long[] b) {
        ByteBuffer buf = ByteBuffer.allocateDirect(ticks.length * EventBatchEncoder.SLOT_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < ticks.length; i++) {
            int base = i * EventBatchEncoder.SLOT_BYTES;
            buf.putLong(base, ticks[i]);
            buf.putInt(base + 8, headers[i]);
            buf.putInt(base + 12, i % 4);
            buf.putLong(base + 16, a[i]);
            buf.putLong(base + 24, b[i]);
        }
        return buf;
    }

    @Test
    void everyKindAndPayloadSurvivesTheRoundTrip() throws FormatException {
        roundTrip(true);
    }

    /**
     * The batch without cpu and truth takes the encoder's chunked loop: the same for every kind,
     * extreme deltas and payloads (ten-byte varints), across chunks, from a buffer that must grow.
     */
    @Test
    void theCommonBatchSurvivesTheRoundTrip() throws FormatException {
        roundTrip(false);
    }

    private static void roundTrip(boolean withCpu) throws FormatException {
        SplittableRandom random = new SplittableRandom(7);
        int n = 5000;
        long[] ticks = new long[n];
        int[] headers = new int[n];
        long[] a = new long[n];
        long[] b = new long[n];
        EventKind[] kinds = EventKind.values();
        long t = 1L << 50;
        for (int i = 0; i < n; i++) {
            t += i % 97 == 0 ? Long.MIN_VALUE / 3 : random.nextInt(100_000);
            ticks[i] = t;
            EventKind k = kinds[random.nextInt(kinds.length)];
            headers[i] = EventCodes.header(k.code, random.nextInt(1 << 23));
            a[i] = k.payloadCount > 0 ? (i % 89 == 0 ? Long.MIN_VALUE : random.nextLong()) : 0;
            b[i] = k.payloadCount > 1 ? (i % 83 == 0 ? Long.MAX_VALUE : random.nextLong()) : 0;
        }
        ByteSink sink = new ByteSink(64);
        EventBatchEncoder.encode(sink, 42, slots(ticks, headers, a, b), n, null, withCpu);

        ByteSource source = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
        assertEquals(RecordType.BATCH, source.readByte("type"));
        EventBatchReader reader = new EventBatchReader().reset(source);
        assertEquals(42, reader.threadId());
        assertFalse(reader.hasTruth());
        for (int i = 0; i < n; i++) {
            assertTrue(reader.next());
            assertEquals(EventCodes.kind(headers[i]), reader.kind.code);
            assertEquals(EventCodes.region(headers[i]), reader.region);
            assertEquals(ticks[i], reader.tick);
            assertEquals(withCpu ? i % 4 : -1, reader.cpu);
            assertEquals(a[i], reader.a);
            assertEquals(b[i], reader.b);
        }
        assertFalse(reader.next());
        assertFalse(source.hasRemaining());
    }

    @Test
    void simulatedClockStoresSimulatedTicksAndTheRealOnesAsTruth() throws FormatException {
        SimulatedClock sim = SimulatedClock.parse("rate=1.3,offset=-5000,drift-ppm=50,drift-period-s=1");
        long[] ticks = {1_000_000, 1_000_500, 2_000_000_000L};
        int[] headers = {EventCodes.header(EventCodes.ENTER, 1), EventCodes.header(EventCodes.EXIT, 1),
            EventCodes.header(EventCodes.THREAD_END, 0)};
        ByteSink sink = new ByteSink(16);
        EventBatchEncoder.encode(sink, 1, slots(ticks, headers, new long[3], new long[3]), 3, sim, false);
        ByteSource source = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
        source.readByte("type");
        EventBatchReader reader = new EventBatchReader().reset(source);
        assertTrue(reader.hasTruth());
        for (long real : ticks) {
            assertTrue(reader.next());
            assertEquals(real, reader.truth);
            assertEquals(sim.apply(real), reader.tick);
            assertEquals(-1, reader.cpu);
        }
    }

    /**
     * A batch of region events says it holds no communication, so the consolidator's first pass can
     * skip it; one send, receive or barrier event anywhere in it (in either encoding loop) and it
     * does not.
     */
    @Test
    void aBatchSaysWhetherItHoldsCommunication() throws FormatException {
        SimulatedClock sim = SimulatedClock.parse("rate=1.3,offset=-5000");
        for (EventKind k : EventKind.values()) {
            for (boolean general : new boolean[] {false, true}) {
                long[] ticks = {100, 200, 300};
                int[] headers = {EventCodes.header(EventCodes.ENTER, 1), EventCodes.header(k.code, 2),
                    EventCodes.header(EventCodes.EXIT, 1)};
                ByteSink sink = new ByteSink(16);
                EventBatchEncoder.encode(sink, 5, slots(ticks, headers, new long[3], new long[3]), 3,
                        general ? sim : null, general);
                ByteSource source = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
                source.readByte("type");
                EventBatchReader reader = new EventBatchReader().reset(source);
                assertEquals(!k.communicates(), reader.holdsNoCommunication(), k + (general ? " (general loop)" : ""));
                int read = 0;
                while (reader.next()) {
                    read++;
                }
                assertEquals(3, read, "the flag changes nothing in the events");
            }
        }
    }

    /**
     * The index at the head of a batch lists exactly its communicating events, in order, with the
     * tick on the stored clock and the payloads the events carry — with and without a simulated
     * clock, with and without cpu — and reading it does not disturb reading the events.
     */
    @Test
    void theCommunicationIndexListsExactlyTheCommunicatingEvents() throws FormatException {
        SimulatedClock sim = SimulatedClock.parse("rate=1.3,offset=-5000,drift-ppm=50,drift-period-s=1");
        SplittableRandom random = new SplittableRandom(11);
        EventKind[] kinds = EventKind.values();
        for (int variant = 0; variant < 4; variant++) {
            boolean simulated = (variant & 1) != 0;
            boolean withCpu = (variant & 2) != 0;
            int n = 3000;
            long[] ticks = new long[n];
            int[] headers = new int[n];
            long[] a = new long[n];
            long[] b = new long[n];
            long t = 1L << 45;
            for (int i = 0; i < n; i++) {
                t += random.nextInt(50_000);
                ticks[i] = t;
                EventKind k = kinds[random.nextInt(kinds.length)];
                headers[i] = EventCodes.header(k.code, random.nextInt(1 << 20));
                a[i] = k.payloadCount > 0 ? random.nextLong() : 0;
                b[i] = k.payloadCount > 1 ? random.nextLong() : 0;
            }
            ByteSink sink = new ByteSink(64);
            EventBatchEncoder.encode(sink, 9, slots(ticks, headers, a, b), n, simulated ? sim : null, withCpu);
            ByteSource source = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
            source.readByte("type");
            EventBatchReader reader = new EventBatchReader().reset(source);
            assertTrue(reader.hasCommunicationIndex());
            int entries = 0;
            boolean moreIndex = true;
            for (int i = 0; i < n; i++) {
                EventKind k = EventKind.ofCode(EventCodes.kind(headers[i]));
                if (k.communicates() && moreIndex) {
                    // interleaved with the events on purpose: the two cursors are independent
                    moreIndex = reader.nextCommunication();
                    assertTrue(moreIndex, "index entry for event " + i);
                    assertEquals(k, reader.kind);
                    assertEquals(EventCodes.region(headers[i]), reader.region);
                    assertEquals(simulated ? sim.apply(ticks[i]) : ticks[i], reader.tick);
                    assertEquals(a[i], reader.a);
                    assertEquals(b[i], reader.b);
                    entries++;
                }
                assertTrue(reader.next());
                assertEquals(k, reader.kind);
                assertEquals(simulated ? sim.apply(ticks[i]) : ticks[i], reader.tick);
                assertEquals(a[i], reader.a);
            }
            assertFalse(reader.nextCommunication());
            assertFalse(reader.next());
            assertTrue(entries > 0);
        }
    }

    /**
     * A communicating event is written once (format version 4): a batch of handoffs holds, after its
     * index, one marker byte per event and nothing else.
     */
    @Test
    void aCommunicatingEventIsWrittenOnceInTheIndex() throws FormatException {
        int n = 4096;
        long[] ticks = new long[n];
        int[] headers = new int[n];
        long[] a = new long[n];
        long[] b = new long[n];
        for (int i = 0; i < n; i++) {
            ticks[i] = (1L << 50) + 40L * i;
            headers[i] = EventCodes.header(i % 2 == 0 ? EventCodes.HANDOFF_PUT : EventCodes.HANDOFF_TAKE, 5);
            a[i] = 16;
            b[i] = i / 2 + 1;
        }
        ByteSink sink = new ByteSink(16);
        EventBatchEncoder.encode(sink, 3, slots(ticks, headers, a, b), n, null, false);
        byte[] bytes = sink.toByteArray();
        // type, thread id 3, flags, count 4096 (two varint bytes), then the index's length
        int lengthAt = 1 + 1 + 1 + 2;
        int index = ByteBuffer.wrap(bytes, lengthAt, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int events = bytes.length - lengthAt - 4 - index;
        assertEquals(n, events, "bytes among the events");
        for (int i = bytes.length - n; i < bytes.length; i++) {
            assertEquals(EventBatchEncoder.MARKER, bytes[i]);
        }
        EventBatchReader reader = new EventBatchReader().reset(bytes, 1, bytes.length - 1);
        for (int i = 0; i < n; i++) {
            assertTrue(reader.next());
            assertEquals(EventCodes.kind(headers[i]), reader.kind.code);
            assertEquals(ticks[i], reader.tick);
            assertEquals(b[i], reader.b);
        }
        assertFalse(reader.next());
    }

    @Test
    void aTypicalRegionEventCostsFewBytes() {
        int n = 10_000;
        long[] ticks = new long[n];
        int[] headers = new int[n];
        for (int i = 0; i < n; i++) {
            ticks[i] = (1L << 40) + 300L * i;
            headers[i] = EventCodes.header(i % 2 == 0 ? EventCodes.ENTER : EventCodes.EXIT, 17);
        }
        ByteSink sink = new ByteSink(16);
        EventBatchEncoder.encode(sink, 3, slots(ticks, headers, new long[n], new long[n]), n, null, false);
        assertTrue(sink.size() < 5 * n, "bytes per event: " + (double) sink.size() / n);
    }

    @Test
    void everyTruncationIsAFormatExceptionNeverGarbage() throws FormatException {
        long[] ticks = {10, 20, 30};
        int[] headers = {EventCodes.header(EventCodes.SEND, 2), EventCodes.header(EventCodes.RECEIVE, 2),
            EventCodes.header(EventCodes.PROGRESS, 3)};
        ByteSink sink = new ByteSink(16);
        EventBatchEncoder.encode(sink, 9, slots(ticks, headers, new long[] {1, 2, 3}, new long[] {4, 5, 6}),
                3, null, false);
        byte[] full = sink.toByteArray();
        for (int cut = 1; cut < full.length; cut++) {
            ByteSource source = new ByteSource(ByteBuffer.wrap(Arrays.copyOf(full, cut)));
            source.readByte("type");
            assertThrows(FormatException.class, () -> {
                EventBatchReader reader = new EventBatchReader().reset(source);
                while (reader.next()) {
                    // read until the cut
                }
            }, "cut at " + cut);
        }
    }
}
