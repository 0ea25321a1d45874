package dev.dprof.consolidator.consolidate;

import dev.dprof.clock.ClockSource;
import dev.dprof.format.ByteSink;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventCodes;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.TcpRegions;
import dev.dprof.format.ThreadInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Writes a process queue holding TCP events the way the agent does — in the current format, or as a
 * queue of an older version whose flows are port pairs — for the matching tests.
 */
final class TcpQueues implements AutoCloseable {
    static final int WRITE = 1;
    static final int READ = 2;

    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final ByteSink record = new ByteSink(1 << 12);
    private final int version;

    TcpQueues(Path dir, int version, long pid, String domain) {
        this.version = version;
        queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(LargeRollCycles.LARGE_DAILY).build();
        appender = queue.createAppender();
        new ProcessHeader(version, "host", pid, 0, 0, domain, ClockSource.RDTSC, "test", 1e9, Optional.empty(), 1024,
                "17", "test", "test.yaml", 5).encode(start());
        append();
        new RegionInfo(WRITE, TcpRegions.WRITE, "send", "tcp", "test", OptionalLong.empty()).encode(start());
        append();
        new RegionInfo(READ, TcpRegions.READ, "receive", "tcp", "test", OptionalLong.empty()).encode(start());
        append();
    }

    /** Describes connection {@code number}: {@code local} and {@code remote} as {@code a.b.c.d:port}. */
    void connection(long number, String local, String remote) {
        new TcpConnection(number, address(local), port(local), address(remote), port(remote), "boot/net:[1]")
                .encode(start());
        append();
    }

    private static byte[] address(String endpoint) {
        String[] parts = endpoint.substring(0, endpoint.indexOf(':')).split("\\.");
        byte[] a = new byte[4];
        for (int i = 0; i < 4; i++) {
            a[i] = (byte) Integer.parseInt(parts[i]);
        }
        return a;
    }

    private static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.indexOf(':') + 1));
    }

    /** One thread's events in order. */
    final class Thread {
        private final long id;
        private final List<long[]> events = new ArrayList<>();

        Thread(long id) {
            this.id = id;
            new ThreadInfo(id, "t" + id).encode(start());
            append();
        }

        /**
         * A write at {@code tick} of the bytes from {@code offset} on connection {@code connection};
         * in an old queue {@code connection} is ignored and the flow is the port pair given.
         */
        Thread write(long tick, long connection, int localPort, int remotePort, long offset) {
            long a = version >= 3 ? connection : TcpRegions.legacyFlow(localPort, remotePort);
            events.add(new long[] {tick, EventCodes.header(EventCodes.SEND, WRITE), a, offset});
            return this;
        }

        /** A read at {@code tick} that ended at offset {@code end}. */
        Thread read(long tick, long connection, int localPort, int remotePort, long end) {
            long a = version >= 3 ? connection : TcpRegions.legacyFlow(remotePort, localPort);
            events.add(new long[] {tick, EventCodes.header(EventCodes.RECEIVE, READ), a, end});
            return this;
        }

        void flush() {
            ByteBuffer b = ByteBuffer.allocate(events.size() * EventBatchEncoder.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < events.size(); i++) {
                long[] e = events.get(i);
                int at = i * EventBatchEncoder.SLOT_BYTES;
                b.putLong(at, e[0]);
                b.putInt(at + 8, (int) e[1]);
                b.putLong(at + 16, e[2]);
                b.putLong(at + 24, e[3]);
            }
            EventBatchEncoder.encode(start(), id, b, events.size(), null, false);
            append();
            events.clear();
        }
    }

    Thread thread(long id) {
        return new Thread(id);
    }

    private ByteSink start() {
        record.clear();
        return record;
    }

    private void append() {
        try (DocumentContext dc = appender.writingDocument()) {
            dc.wire().bytes().write(record.array(), 0, record.size());
        }
    }

    @Override
    public void close() {
        new ProcessEnd(0, 0, 0, "").encode(start());
        append();
        appender.close();
        queue.close();
    }
}
