package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import java.lang.management.ManagementFactory;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The calibration base's receive → check → reply path allocates nothing per datagram, garbage or
 * request, so a flood cannot grow its heap whatever heap the JVM was given (BENCHMARKS.md,
 * "Robustness"). Measured in bytes by the JVM's per-thread allocation counter, not by time.
 */
class ServerAllocationTest {
    private static final SharedKey KEY = SharedKey.of("allocation-test-key-0123456789".getBytes(StandardCharsets.UTF_8));
    /** More than one log line costs: its string, the sender's address in words, the builder's arrays. */
    private static final long LINE_BYTES = 2048;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void checkingAndAnsweringAllocateNothing() {
        for (PacketCodec codec : List.of(PacketCodec.open(), PacketCodec.keyed(KEY))) {
            byte[][] datagrams = datagrams(codec, new Random(3)).toArray(new byte[0][]); // no iterator per round
            byte[] out = new byte[PacketCodec.MAX_BYTES];
            byte[] domain = PacketCodec.text("tsc@base");
            long[] sink = new long[1];
            Runnable round = () -> {
                for (int i = 0; i < datagrams.length; i++) {
                    byte[] d = datagrams[i];
                    int type = codec.parse(d, d.length);
                    if (type == PacketCodec.TYPE_PING) {
                        sink[0] += codec.encodePong(codec.session(), codec.seq(), 7, 9, out);
                    } else if (type == PacketCodec.TYPE_HELLO) {
                        sink[0] += codec.encodeWelcome(codec.session(), codec.seq(), domain, out);
                    } else if (type == PacketCodec.REJECTED) {
                        sink[0] += codec.rejectedReason().ordinal();
                    }
                }
            };
            for (int i = 0; i < 20; i++) {
                round.run(); // compiled before it is measured: a compilation's deoptimisation may allocate
            }
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 50; i++) {
                round.run();
            }
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            // The smallest object is 16 bytes: one per datagram would be 16 × their number. What the JVM
            // itself may do on this thread once (a recompilation's deoptimisation) is a few hundred bytes.
            long datagramsChecked = 50L * datagrams.length;
            assertTrue(allocated < datagramsChecked, allocated + " bytes over " + datagramsChecked + " datagrams, "
                    + (codec.authenticated() ? "keyed" : "open") + " codec");
            assertTrue(sink[0] > 0);
        }
    }

    @Test
    void theServingThreadAllocatesNothingPerDatagram() throws Exception {
        DomainClock clock = new DomainClock(ClockSource.NANOTIME, System::nanoTime,
                Optional.of(SimulatedClock.parse("rate=1.25,offset=1000")));
        PacketCodec codec = PacketCodec.keyed(KEY);
        Random random = new Random(11);
        List<byte[]> datagrams = datagrams(codec, random);
        java.util.concurrent.atomic.AtomicLong lines = new java.util.concurrent.atomic.AtomicLong();
        try (CalibrationServer server = CalibrationServer.start(0, clock, Optional.of(KEY), line -> lines.incrementAndGet());
             DatagramChannel sender = DatagramChannel.open()) {
            InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port());
            sender.socket().setSoTimeout((int) Nodes.DEADLINE_MILLIS);
            // the first round: class loading, the log's burst of lines, the JDK's caches
            long warm = flood(server, codec, sender, to, datagrams, 0);
            long linesBefore = lines.get();
            long before = THREADS.getThreadAllocatedBytes(server.threadId());
            long handled = flood(server, codec, sender, to, datagrams, 3) - warm;
            long allocated = THREADS.getThreadAllocatedBytes(server.threadId()) - before;
            long logged = lines.get() - linesBefore;
            assertTrue(handled >= 3 * datagrams.size(), server.counts());
            // What may remain: the hello lines the log lets through, one a second, a line's string each.
            System.out.printf("serving thread: %d bytes over %d datagrams, %d log lines%n", allocated, handled, logged);
            assertTrue(allocated <= logged * LINE_BYTES, allocated + " bytes over " + handled + " datagrams and "
                    + logged + " log lines: " + server.counts());
        }
    }

    /**
     * Sends {@code datagrams} {@code rounds} times (once if 0), each batch of 20 followed by a ping
     * whose pong says the server has handled everything before it; returns how many datagrams the
     * server has handled in all.
     */
    private static long flood(CalibrationServer server, PacketCodec codec, DatagramChannel sender, InetSocketAddress to,
                              List<byte[]> datagrams, int rounds) throws Exception {
        long seq = 1_000_000L * rounds;
        for (int round = 0; round < Math.max(1, rounds); round++) {
            for (int from = 0; from < datagrams.size(); from += 20) {
                for (byte[] d : datagrams.subList(from, Math.min(from + 20, datagrams.size()))) {
                    sender.send(ByteBuffer.wrap(d), to);
                }
                awaitPong(codec, sender, to, ++seq);
            }
        }
        return server.count(CalibrationServer.Count.PINGS) + server.count(CalibrationServer.Count.HELLOS)
                + server.count(CalibrationServer.Count.REJECTED) + server.count(CalibrationServer.Count.IGNORED);
    }

    /** Pings until the pong of {@code seq} comes back (a datagram lost on the loopback is sent again). */
    private static void awaitPong(PacketCodec codec, DatagramChannel sender, InetSocketAddress to, long seq)
            throws Exception {
        byte[] bytes = new byte[PacketCodec.MAX_BYTES];
        int n = codec.encode(new Packet.Ping(-1, seq), bytes);
        for (int attempt = 0; attempt < 5; attempt++) {
            sender.send(ByteBuffer.wrap(bytes, 0, n), to);
            try {
                while (true) {
                    DatagramPacket reply = new DatagramPacket(new byte[PacketCodec.MAX_BYTES], PacketCodec.MAX_BYTES);
                    sender.socket().receive(reply); // the adaptor's receive honours the timeout
                    if (codec.decode(reply.getData(), reply.getLength()) instanceof Packet.Pong pong && pong.seq() == seq) {
                        return;
                    }
                }
            } catch (SocketTimeoutException e) {
                // lost: ask again
            }
        }
        throw new AssertionError("no pong for " + seq);
    }

    /** Garbage of every kind, pings and hellos (each of a new session, as a flood's), in a fixed mix. */
    private static List<byte[]> datagrams(PacketCodec codec, Random random) {
        PacketCodec forger = PacketCodec.keyed(SharedKey.of("a-forger-guessed-this-key-000".getBytes(StandardCharsets.UTF_8)));
        byte[] buf = new byte[PacketCodec.MAX_BYTES];
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            out.add(CalibrationServerTest.junk(random, codec, forger));
            out.add(Arrays.copyOf(buf, codec.encode(new Packet.Ping(random.nextLong(), i), buf)));
            if (i % 4 == 0) {
                out.add(Arrays.copyOf(buf, codec.encode(new Packet.Hello(random.nextLong(), i, "tsc@node-" + i), buf)));
            }
        }
        return out;
    }
}
