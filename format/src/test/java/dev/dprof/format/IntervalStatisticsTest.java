package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.clock.ClockSource;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code S} record as the agent writes it piece by piece, read back whole; and the header's mode. */
class IntervalStatisticsTest {
    private static final byte[] HISTOGRAM = {1, 2, 3, 4, 5};

    private static ByteSource read(ByteSink sink) throws FormatException {
        ByteSource in = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
        assertEquals(RecordType.STATISTICS, in.readByte("type"));
        return in;
    }

    /** A record with a 128-bit tick sum, a caller at the top and one of region 7, an instance and a peer. */
    private static ByteSink written() {
        ByteSink out = new ByteSink(4);
        IntervalStatistics.writeHead(out, 3, 100, 900, 1000, 12, 2, 1, 4, 9);
        IntervalStatistics.writeFigures(out, 5, 4, 1, -1L, 0, Long.MAX_VALUE, 0, 5 * 1024, HISTOGRAM, HISTOGRAM.length);
        IntervalStatistics.writeCount(out, 2);
        IntervalStatistics.writeCaller(out, IntervalStatistics.TOP);
        IntervalStatistics.writeFigures(out, 2, 2, 0, 30, 10, 20, 0, 0, HISTOGRAM, 2);
        IntervalStatistics.writeCaller(out, 7);
        IntervalStatistics.writeFigures(out, 3, 2, 0, 40, 0, 40, 0, 1024, HISTOGRAM, 3);
        IntervalStatistics.writeLeftOut(out, 0);
        IntervalStatistics.writeCount(out, 1);
        IntervalStatistics.writeInstance(out, -9);
        IntervalStatistics.writeFigures(out, 1, 1, 0, 5, 5, 5, 0, 0, HISTOGRAM, 1);
        IntervalStatistics.writeLeftOut(out, 6);
        IntervalStatistics.writeCount(out, 1);
        IntervalStatistics.writePeer(out, 42, 3, 0);
        IntervalStatistics.writeFigures(out, 0, 0, 0, 0, 0, 0, 0, 0, null, 0);
        IntervalStatistics.writeLeftOut(out, 0);
        return out;
    }

    @Test
    void aRecordRoundTrips() throws FormatException {
        IntervalStatistics s = IntervalStatistics.decode(read(written()));
        assertEquals(3, s.region());
        assertEquals(100, s.firstTick());
        assertEquals(900, s.lastTick());
        assertEquals(1000, s.endTick());
        assertEquals(12, s.lostSoFar());
        assertEquals(2, s.open());
        assertEquals(1, s.unexited());
        assertEquals(4, s.unpairedExits());
        assertEquals(9, s.points());
        IntervalStatistics.Figures all = s.all();
        assertEquals(5, all.count());
        assertEquals(4, all.positive());
        assertEquals(BigInteger.ONE.shiftLeft(65).subtract(BigInteger.ONE), all.ticks(), "high 1, low all ones");
        assertEquals(Long.MAX_VALUE, all.maxTicks());
        assertEquals(BigInteger.valueOf(5 * 1024), all.correctionX1024());
        assertArrayEquals(HISTOGRAM, all.histogram());
        assertEquals(2, s.callers().size());
        assertEquals(IntervalStatistics.TOP, s.callers().get(0).caller());
        assertArrayEquals(new byte[] {1, 2}, s.callers().get(0).figures().histogram());
        assertEquals(7, s.callers().get(1).caller());
        assertEquals(BigInteger.valueOf(40), s.callers().get(1).figures().ticks());
        assertEquals(0, s.callersLeftOut());
        assertEquals(-9, s.instances().get(0).instance());
        assertEquals(6, s.instancesLeftOut());
        IntervalStatistics.Peer peer = s.peers().get(0);
        assertEquals(42, peer.channel());
        assertEquals(3, peer.sends());
        assertEquals(0, peer.figures().count());
    }

    @Test
    void aDecodedRecordEncodesToTheSameBytes() throws FormatException {
        byte[] written = written().toByteArray();
        ByteSink again = new ByteSink(4);
        IntervalStatistics.decode(read(written())).encode(again);
        assertArrayEquals(written, again.toByteArray());
    }

    @Test
    void everyTruncationIsAnErrorNotAWrongRecord() {
        byte[] whole = written().toByteArray();
        for (int n = 1; n < whole.length; n++) {
            byte[] cut = Arrays.copyOf(whole, n);
            ByteSource in = new ByteSource(ByteBuffer.wrap(cut));
            int at = n;
            assertThrows(FormatException.class, () -> {
                in.readByte("type");
                IntervalStatistics.decode(in);
            }, () -> "cut after " + at + " bytes");
        }
    }

    @Test
    void inconsistentFiguresAreRefused() {
        ByteSink out = new ByteSink(4);
        IntervalStatistics.writeHead(out, 1, 0, 0, 0, 0, 0, 0, 0, 0);
        IntervalStatistics.writeFigures(out, 2, 3, 0, 10, 1, 2, 0, 0, HISTOGRAM, 1);
        FormatException e = assertThrows(FormatException.class, () -> IntervalStatistics.decode(read(out)));
        assertTrue(e.getMessage().contains("inconsistent figures"), e.getMessage());
    }

    private static ProcessHeader header(int statisticsMs, boolean traced) {
        return new ProcessHeader(RecordType.FORMAT_VERSION, "h", 1, 2, 3, "tsc@x", ClockSource.RDTSC, "", 3e9,
                Optional.empty(), 40_000, "17", "0.1.0", "dprof.yaml", 5, statisticsMs, traced);
    }

    @Test
    void theHeaderSaysStatisticsModeAndATraceHeaderStaysAsItWas() throws FormatException {
        for (ProcessHeader h : new ProcessHeader[] {header(1000, false), header(250, true), header(0, true)}) {
            ByteSink sink = new ByteSink(8);
            h.encode(sink);
            ByteSource in = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
            in.readByte("type");
            assertEquals(h, ProcessHeader.decode(in));
        }
        ByteSink trace = new ByteSink(8);
        header(0, true).encode(trace);
        ByteSink old = new ByteSink(8);
        new ProcessHeader(RecordType.FORMAT_VERSION, "h", 1, 2, 3, "tsc@x", ClockSource.RDTSC, "", 3e9,
                Optional.empty(), 40_000, "17", "0.1.0", "dprof.yaml", 5).encode(old);
        assertArrayEquals(old.toByteArray(), trace.toByteArray(), "a trace's header is byte for byte the old one");
        assertFalse(header(0, true).statisticsMode());
        assertTrue(header(1000, false).statisticsMode());
    }
}
