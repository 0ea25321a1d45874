package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.clock.ClockSource;
import dev.dprof.clock.SimulatedClock;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RecordsRoundTripTest {

    private static ByteSource sourceOf(ByteSink sink, int expectedType) throws FormatException {
        ByteSource in = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
        assertEquals(expectedType, in.readByte("type"));
        return in;
    }

    private static ProcessHeader header(int version) {
        return new ProcessHeader(version, "host-a", 1234, 1_700_000_000_000L, 99_999, "tsc@boot/sim(rate=1.3)",
                ClockSource.RDTSCP, "rdtscp on request", 2.9e9,
                Optional.of(SimulatedClock.parse("rate=1.25,offset=77")), 12_345, "17.0.15", "0.1.0",
                "dprof.yaml", 5);
    }

    @Test
    void headerRoundTrips() throws FormatException {
        ByteSink sink = new ByteSink(8);
        header(RecordType.FORMAT_VERSION).encode(sink);
        assertEquals(header(RecordType.FORMAT_VERSION), ProcessHeader.decode(sourceOf(sink, RecordType.HEADER)));
    }

    @Test
    void anUnknownFormatVersionIsRefusedByName() throws FormatException {
        ByteSink sink = new ByteSink(8);
        header(99).encode(sink);
        FormatException e = assertThrows(FormatException.class,
                () -> ProcessHeader.decode(sourceOf(sink, RecordType.HEADER)));
        assertTrue(e.getMessage().contains("unknown format version 99"), e.getMessage());
    }

    @Test
    void aVersionOneHeaderIsStillRead() throws FormatException {
        ByteSink sink = new ByteSink(8);
        header(1).encode(sink);
        assertEquals(header(1), ProcessHeader.decode(sourceOf(sink, RecordType.HEADER)));
    }

    @Test
    void theNextFormatVersionIsRefusedInOneLine() throws FormatException {
        ByteSink sink = new ByteSink(8);
        header(RecordType.FORMAT_VERSION + 1).encode(sink);
        FormatException e = assertThrows(FormatException.class,
                () -> ProcessHeader.decode(sourceOf(sink, RecordType.HEADER)));
        assertEquals("unknown format version 5 (this build reads versions 1 to 4)", e.getMessage());
    }

    @Test
    void regionThreadAndEndRecordsRoundTrip() throws FormatException {
        RegionInfo region = new RegionInfo(5, "Worker#compute", "plain", "yaml", "dprof.yaml:7", OptionalLong.of(-3));
        ThreadInfo thread = new ThreadInfo(17, "worker-1 ✓");
        ProcessEnd end = new ProcessEnd(1L << 60, 1_000_000, 3, "ring full");
        ByteSink sink = new ByteSink(8);
        region.encode(sink);
        assertEquals(region, RegionInfo.decode(sourceOf(sink, RecordType.REGION)));
        sink.clear();
        thread.encode(sink);
        assertEquals(thread, ThreadInfo.decode(sourceOf(sink, RecordType.THREAD)));
        sink.clear();
        end.encode(sink);
        assertEquals(end, ProcessEnd.decode(sourceOf(sink, RecordType.END)));
    }

    @Test
    void aConnectionRoundTripsWithItsAddressesCanonical() throws FormatException {
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF, 127, 0, 0, 3};
        byte[] v6 = new byte[16];
        v6[15] = 1;
        TcpConnection c = new TcpConnection(7, mapped, 40555, v6, 8080, "boot/net:[4026531833]");
        assertEquals("127.0.0.3:40555", TcpConnection.endpoint(c.localAddress(), c.localPort()), "stored as IPv4");
        ByteSink sink = new ByteSink(8);
        c.encode(sink);
        assertEquals(c, TcpConnection.decode(sourceOf(sink, RecordType.CONNECTION)));
        assertTrue(TcpConnection.isLoopback(c.localAddress()) && TcpConnection.isLoopback(c.remoteAddress()));
        assertTrue(!TcpConnection.isLoopback(new byte[] {10, 0, 0, 1}));
    }

    @Test
    void aConnectionWithABadAddressLengthIsRefusedInOneLine() {
        ByteSink sink = new ByteSink(8);
        new TcpConnection(1, new byte[] {1, 2, 3}, 1, new byte[0], 2, "").encode(sink);
        FormatException e = assertThrows(FormatException.class,
                () -> TcpConnection.decode(sourceOf(sink, RecordType.CONNECTION)));
        assertEquals("local address of 3 bytes (4 or 16 expected)", e.getMessage());
    }
}
