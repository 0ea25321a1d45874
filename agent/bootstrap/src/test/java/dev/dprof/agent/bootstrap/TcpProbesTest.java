package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.dprof.format.EventCodes;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The probes of Netty's native transport ({@link TcpProbes#beforeNativeWrite}, {@link TcpProbes#afterWrite},
 * {@link TcpProbes#afterNativeRead}) and of {@code FileChannel.transferTo} a socket, called as the
 * advice does; Netty's on descriptors that stand for Netty's:
 * public {@code getIntOpt}, {@code localAddress()} and {@code remoteAddress()}, and {@code equals} by
 * descriptor number as {@code io.netty.channel.unix.FileDescriptor} has it. Events are drained from the
 * Java rings of a thread of their own.
 */
class TcpProbesTest {
    private static final int WRITE = 61;
    private static final int READ = 62;

    /** A Netty socket as far as the probes see it: a descriptor number, a protocol and two endpoints. */
    public static final class Descriptor {
        private final int fd;
        private final int protocol;
        private final InetSocketAddress local;
        private final InetSocketAddress remote;

        Descriptor(int fd, int protocol, int localPort, int remotePort) {
            this.fd = fd;
            this.protocol = protocol;
            this.local = new InetSocketAddress(InetAddress.getLoopbackAddress(), localPort);
            this.remote = new InetSocketAddress(InetAddress.getLoopbackAddress(), remotePort);
        }

        public int getIntOpt(int level, int option) {
            return level == 1 && option == 38 ? protocol : -1;
        }

        public InetSocketAddress localAddress() {
            return local;
        }

        public InetSocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Descriptor d && d.fd == fd;
        }

        @Override
        public int hashCode() {
            return fd;
        }
    }

    @BeforeEach
    void regions() {
        TcpProbes.regions(WRITE, READ);
        opened();
    }

    private static List<TcpProbes.Connection> opened() {
        List<TcpProbes.Connection> opened = new ArrayList<>();
        TcpProbes.drainOpened(opened::add);
        return opened;
    }

    /** The sends and receives {@code body} recorded, as {kind, connection, offset}. */
    private static List<List<Long>> recorded(Runnable body) throws InterruptedException {
        Thread t = new Thread(body, "event-loop");
        t.start();
        t.join();
        Collector c = new Collector();
        Rings.drain(c, ByteBuffer.allocateDirect(Rings.SLOT_BYTES * 64));
        List<List<Long>> events = new ArrayList<>();
        for (Slot s : c.of(t.getId())) {
            if (s.kind() == EventCodes.SEND) {
                assertEquals(WRITE, s.region());
                events.add(List.of((long) EventCodes.SEND, s.a(), s.b()));
            } else if (s.kind() == EventCodes.RECEIVE) {
                assertEquals(READ, s.region());
                events.add(List.of((long) EventCodes.RECEIVE, s.a(), s.b()));
            }
        }
        return events;
    }

    private static void write(Object descriptor, long written) {
        TcpProbes.beforeNativeWrite(descriptor);
        TcpProbes.afterWrite(descriptor, written);
    }

    @Test
    void aConnectionIsDescribedAtItsFirstIoAndKeyedByOffsets() throws InterruptedException {
        Descriptor socket = new Descriptor(40, 6, 41000, 8080);
        List<List<Long>> events = recorded(() -> {
            write(socket, 100);
            TcpProbes.afterNativeRead(socket, 30);
            write(socket, 50);
            TcpProbes.afterNativeRead(socket, -1); // the end of the stream
            TcpProbes.afterNativeRead(socket, 20);
        });
        List<TcpProbes.Connection> opened = opened();
        assertEquals(1, opened.size());
        TcpProbes.Connection c = opened.get(0);
        assertEquals(41000, c.localPort);
        assertEquals(8080, c.remotePort);
        assertArrayEquals(new byte[] {127, 0, 0, 1}, c.localAddress);
        assertArrayEquals(new byte[] {127, 0, 0, 1}, c.remoteAddress);
        long n = c.number;
        assertEquals(List.of(List.of(7L, n, 0L), List.of(8L, n, 30L), List.of(7L, n, 100L), List.of(8L, n, 50L)),
                events);
    }

    @Test
    void aWriteThatSentNothingLeavesTheOffsetToTheFirstStamp() throws InterruptedException {
        Descriptor socket = new Descriptor(41, 6, 41001, 8080);
        List<List<Long>> events = recorded(() -> {
            write(socket, 10);
            write(socket, 0); // a full socket buffer: EAGAIN
            write(socket, 0);
            write(socket, 5);
            write(socket, 7);
        });
        long n = opened().get(0).number;
        assertEquals(List.of(List.of(7L, n, 0L), List.of(7L, n, 10L), List.of(7L, n, 15L)), events);
    }

    @Test
    void aReusedDescriptorNumberIsANewConnection() throws InterruptedException {
        // the kernel gives a closed socket's number to the next: the closed one's object may still be in the map
        Descriptor closed = new Descriptor(42, 6, 41002, 8080);
        Descriptor reused = new Descriptor(42, 6, 41003, 8081);
        List<List<Long>> events = recorded(() -> {
            write(closed, 64);
            write(reused, 32);
            write(reused, 16);
        });
        List<TcpProbes.Connection> opened = opened();
        assertEquals(List.of(41002, 41003), opened.stream().map(c -> c.localPort).toList());
        long first = opened.get(0).number;
        long second = opened.get(1).number;
        assertNotEquals(first, second);
        assertEquals(List.of(List.of(7L, first, 0L), List.of(7L, second, 0L), List.of(7L, second, 32L)), events);
    }

    @Test
    void descriptorsThatAreNotTcpRecordNothing() throws InterruptedException {
        Descriptor udp = new Descriptor(43, 17, 41004, 53);
        Descriptor unix = new Descriptor(44, 0, 41005, 1);
        Object pipe = new Object();
        List<List<Long>> events = recorded(() -> {
            for (Object d : List.of(udp, unix, pipe)) {
                write(d, 10);
                TcpProbes.afterNativeRead(d, 10);
            }
        });
        assertEquals(List.of(), events);
        assertEquals(List.of(), opened());
    }

    @Test
    void aTransferToASocketIsASendWhoseBytesCountOnce() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            assertEquals(-1, TcpProbes.beforeTransfer(new Object()), "not a socket: nothing recorded");
            List<List<Long>> events = recorded(() -> {
                TcpProbes.afterTransfer(client, TcpProbes.beforeTransfer(client), 100); // sendfile
                long before = TcpProbes.beforeTransfer(client);
                // the JDK's fallback: the channel's own write, woven too, counted the bytes already
                TcpProbes.afterWrite(client, 40);
                TcpProbes.afterTransfer(client, before, 40);
                TcpProbes.afterTransfer(client, TcpProbes.beforeTransfer(client), 0); // a full socket buffer
                TcpProbes.afterTransfer(client, TcpProbes.beforeTransfer(client), 7);
                TcpProbes.beforeTransfer(client);
            });
            List<TcpProbes.Connection> opened = opened();
            assertEquals(1, opened.size());
            TcpProbes.Connection c = opened.get(0);
            assertEquals(((InetSocketAddress) client.getLocalAddress()).getPort(), c.localPort);
            assertEquals(((InetSocketAddress) server.getLocalAddress()).getPort(), c.remotePort);
            long n = c.number;
            assertEquals(List.of(List.of(7L, n, 0L), List.of(7L, n, 100L), List.of(7L, n, 140L), List.of(7L, n, 147L)),
                    events);
        }
    }
}
