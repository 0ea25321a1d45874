package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Batches in the layouts format versions 1 to 3 wrote (docs/FORMAT.md, "`B` batch"), written here
 * from their description, still read as they were: version 3's index of absolute ticks ahead of the
 * events in full, and a batch from before the index and its flags. And the checks a marked batch
 * (version 4) gets that the older ones need not: a marker with no entry, an entry with no marker.
 */
class OlderBatchLayoutTest {
    private static final int N = 2000;

    /** Events of every kind, with and without cpu, as arrays (tick, header, cpu, a, b). */
    private record Events(long[] ticks, int[] headers, int[] cpus, long[] a, long[] b) {
        static Events random(long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            EventKind[] kinds = EventKind.values();
            Events e = new Events(new long[N], new int[N], new int[N], new long[N], new long[N]);
            long t = 1L << 48;
            for (int i = 0; i < N; i++) {
                t += random.nextInt(40_000) - 1000;
                EventKind k = kinds[random.nextInt(kinds.length)];
                e.ticks[i] = t;
                e.headers[i] = EventCodes.header(k.code, random.nextInt(1 << 16));
                e.cpus[i] = random.nextInt(64);
                e.a[i] = k.payloadCount > 0 ? random.nextLong() : 0;
                e.b[i] = k.payloadCount > 1 ? random.nextLong() : 0;
            }
            return e;
        }

        EventKind kind(int i) {
            return EventKind.ofCode(EventCodes.kind(headers[i]));
        }
    }

    /**
     * The body of a batch (after its type byte) as version 3 wrote it ({@code withIndex}), or as
     * version 1 wrote it before the index existed: every event in full among the events.
     */
    private static byte[] olderBatch(Events e, boolean withIndex, boolean withCpu) {
        ByteSink out = new ByteSink(64);
        out.writeVarLong(7);
        boolean communicates = false;
        for (int i = 0; i < N; i++) {
            communicates |= e.kind(i).communicates();
        }
        int flags = withCpu ? EventBatchEncoder.FLAG_CPU : 0;
        if (withIndex) {
            flags |= communicates ? EventBatchEncoder.FLAG_COMMUNICATION_INDEX : EventBatchEncoder.FLAG_NO_COMMUNICATION;
        }
        out.writeByte(flags);
        out.writeVarLong(N);
        if (withIndex && communicates) {
            ByteSink index = new ByteSink(64);
            for (int i = 0; i < N; i++) {
                if (e.kind(i).communicates()) {
                    index.writeVarLong(e.headers[i]);
                    index.writeSignedVarLong(e.ticks[i]); // absolute
                    payloads(index, e, i);
                }
            }
            for (int k = 0; k < 4; k++) {
                out.writeByte(index.size() >>> (8 * k));
            }
            byte[] bytes = index.toByteArray();
            for (byte x : bytes) {
                out.writeByte(x);
            }
        }
        long prev = 0;
        for (int i = 0; i < N; i++) {
            out.writeVarLong(e.headers[i]);
            out.writeSignedVarLong(e.ticks[i] - prev);
            prev = e.ticks[i];
            if (withCpu) {
                out.writeVarLong(e.cpus[i]);
            }
            payloads(out, e, i);
        }
        return out.toByteArray();
    }

    private static void payloads(ByteSink out, Events e, int i) {
        int n = e.kind(i).payloadCount;
        if (n > 0) {
            out.writeSignedVarLong(e.a[i]);
        }
        if (n > 1) {
            out.writeSignedVarLong(e.b[i]);
        }
    }

    @Test
    void aVersionThreeBatchReadsItsIndexAndItsEvents() throws FormatException {
        for (boolean withCpu : new boolean[] {false, true}) {
            Events e = Events.random(withCpu ? 5 : 6);
            byte[] body = olderBatch(e, true, withCpu);
            EventBatchReader reader = new EventBatchReader().reset(body, 0, body.length);
            assertTrue(reader.hasCommunicationIndex());
            for (int i = 0; i < N; i++) {
                if (e.kind(i).communicates()) {
                    assertTrue(reader.nextCommunication(), "entry of event " + i);
                    assertEquals(e.kind(i), reader.kind);
                    assertEquals(EventCodes.region(e.headers[i]), reader.region);
                    assertEquals(e.ticks[i], reader.tick, "absolute tick of event " + i);
                    assertEquals(e.a[i], reader.a);
                    assertEquals(e.b[i], reader.b);
                }
            }
            assertFalse(reader.nextCommunication());
            readsEveryEvent(reader, e, withCpu);
        }
    }

    /** What generators of older queues write ({@link EventBatchBuilder#encode(ByteSink, boolean)}) is version 3's layout. */
    @Test
    void theBuilderWritesVersionThreesLayoutByteForByte() throws FormatException {
        for (boolean withCpu : new boolean[] {false, true}) {
            byte[] body = olderBatch(Events.random(withCpu ? 12 : 13), true, withCpu);
            EventBatchReader reader = new EventBatchReader().reset(body, 0, body.length);
            EventBatchBuilder builder = new EventBatchBuilder();
            builder.start(reader.threadId(), reader);
            while (reader.next()) {
                builder.add(reader);
            }
            ByteSink rebuilt = new ByteSink(64);
            builder.encode(rebuilt, false);
            byte[] expected = new byte[body.length + 1];
            expected[0] = (byte) RecordType.BATCH;
            System.arraycopy(body, 0, expected, 1, body.length);
            assertArrayEquals(expected, rebuilt.toByteArray(), "cpu " + withCpu);
        }
    }

    @Test
    void aBatchFromBeforeTheIndexReadsItsEvents() throws FormatException {
        for (boolean withCpu : new boolean[] {false, true}) {
            Events e = Events.random(withCpu ? 8 : 9);
            byte[] body = olderBatch(e, false, withCpu);
            EventBatchReader reader = new EventBatchReader().reset(body, 0, body.length);
            assertFalse(reader.hasCommunicationIndex());
            assertFalse(reader.holdsNoCommunication(), "without the flag the first pass decodes it");
            readsEveryEvent(reader, e, withCpu);
        }
    }

    /** The same events in the present layout read alike, in fewer bytes (each communicating event once). */
    @Test
    void thePresentLayoutReadsTheSameEventsInFewerBytes() throws FormatException {
        Events e = Events.random(5);
        ByteBuffer slots = ByteBuffer.allocate(N * EventBatchEncoder.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < N; i++) {
            int base = i * EventBatchEncoder.SLOT_BYTES;
            slots.putLong(base, e.ticks[i]);
            slots.putInt(base + 8, e.headers[i]);
            slots.putInt(base + 12, e.cpus[i]);
            slots.putLong(base + 16, e.a[i]);
            slots.putLong(base + 24, e.b[i]);
        }
        ByteSink sink = new ByteSink(64);
        EventBatchEncoder.encode(sink, 7, slots, N, null, true);
        byte[] present = sink.toByteArray();
        EventBatchReader reader = new EventBatchReader().reset(present, 1, present.length - 1);
        readsEveryEvent(reader, e, true);
        assertTrue(present.length - 1 < olderBatch(e, true, true).length,
                present.length - 1 + " bytes against version 3's " + olderBatch(e, true, true).length);
    }

    private static void readsEveryEvent(EventBatchReader reader, Events e, boolean withCpu) throws FormatException {
        for (int i = 0; i < N; i++) {
            assertTrue(reader.next(), "event " + i);
            assertEquals(e.kind(i), reader.kind, "event " + i);
            assertEquals(EventCodes.region(e.headers[i]), reader.region);
            assertEquals(e.ticks[i], reader.tick, "tick of event " + i);
            assertEquals(withCpu ? e.cpus[i] : -1, reader.cpu);
            assertEquals(e.a[i], reader.a);
            assertEquals(e.b[i], reader.b);
        }
        assertFalse(reader.next());
    }

    /** A marked batch: one SEND entry in the index, then the given events' bytes ({@code count} of them). */
    private static byte[] markedBatch(int count, int... events) {
        ByteSink out = new ByteSink(32);
        out.writeVarLong(3);
        out.writeByte(EventBatchEncoder.FLAG_COMMUNICATION_INDEX | EventBatchEncoder.FLAG_MARKED);
        out.writeVarLong(count);
        ByteSink index = new ByteSink(16);
        index.writeVarLong(EventCodes.header(EventCodes.SEND, 2));
        index.writeSignedVarLong(1000);
        index.writeSignedVarLong(5);
        index.writeSignedVarLong(6);
        for (int k = 0; k < 4; k++) {
            out.writeByte(index.size() >>> (8 * k));
        }
        for (byte x : index.toByteArray()) {
            out.writeByte(x);
        }
        for (int x : events) {
            out.writeByte(x);
        }
        return out.toByteArray();
    }

    @Test
    void aMarkedBatchReadsItsMarkerFromTheIndex() throws FormatException {
        // ENTER of region 1 (header 3 | 1 << 8: two varint bytes), tick delta +10, then the marker.
        byte[] body = markedBatch(2, 0x83, 0x02, 20, EventBatchEncoder.MARKER);
        EventBatchReader reader = new EventBatchReader().reset(body, 0, body.length);
        assertTrue(reader.next());
        assertEquals(EventKind.ENTER, reader.kind);
        assertEquals(10, reader.tick);
        assertTrue(reader.next());
        assertEquals(EventKind.SEND, reader.kind);
        assertEquals(2, reader.region);
        assertEquals(1000, reader.tick);
        assertEquals(5, reader.a);
        assertEquals(6, reader.b);
        assertFalse(reader.next());
    }

    @Test
    void aMarkerWithNoEntryLeftIsAFormatException() throws FormatException {
        byte[] body = markedBatch(2, EventBatchEncoder.MARKER, EventBatchEncoder.MARKER);
        EventBatchReader reader = new EventBatchReader().reset(body, 0, body.length);
        assertTrue(reader.next());
        FormatException e = assertThrows(FormatException.class, reader::next);
        assertEquals("an event marks an entry past the communication index's last", e.getMessage());
    }

    @Test
    void anEntryNoMarkerStandsForIsAFormatException() throws FormatException {
        byte[] body = markedBatch(1, 0x83, 0x02, 20);
        EventBatchReader reader = new EventBatchReader().reset(body, 0, body.length);
        FormatException e = assertThrows(FormatException.class, reader::next);
        assertEquals("the communication index holds entries no event marks", e.getMessage());
    }

    @Test
    void aMarkerOutsideAMarkedBatchIsNoEvent() throws FormatException {
        ByteSink out = new ByteSink(8);
        out.writeVarLong(3);
        out.writeByte(0);
        out.writeVarLong(1);
        out.writeByte(EventBatchEncoder.MARKER);
        byte[] body = out.toByteArray();
        EventBatchReader reader = new EventBatchReader().reset(body, 0, body.length);
        FormatException e = assertThrows(FormatException.class, reader::next);
        assertEquals("unknown event kind 0", e.getMessage());
    }
}
