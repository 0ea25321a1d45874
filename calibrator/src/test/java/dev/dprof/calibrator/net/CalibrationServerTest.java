package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CalibrationServerTest {
    private static final SharedKey KEY = SharedKey.of("server-test-key-0123456789".getBytes(StandardCharsets.UTF_8));
    private static final SharedKey FORGER = SharedKey.of("forger-guessed-key-000000".getBytes(StandardCharsets.UTF_8));

    @Test
    void garbageIsCountedAndNeverStopsTheServer() throws Exception {
        TruthClock parent = new TruthClock("rate=1.25,offset=1000");
        PacketCodec codec = PacketCodec.keyed(KEY);
        PacketCodec forger = PacketCodec.keyed(FORGER);
        Random random = new Random(7);
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        long garbage = 0;
        try (CalibrationServer server = CalibrationServer.start(0, parent.clock, Optional.of(KEY), line -> { });
             DatagramSocket socket = new DatagramSocket()) {
            // Not connected: a connected JDK socket silently skips empty datagrams.
            InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port());
            socket.setSoTimeout((int) Nodes.DEADLINE_MILLIS);
            for (int batch = 0; batch < 100; batch++) {
                for (int i = 0; i < 20; i++) {
                    byte[] junk = junk(random, codec, forger);
                    socket.send(new DatagramPacket(junk, junk.length, to));
                    garbage++;
                }
                // The server handles datagrams in order: the answer to this ping means all junk before it was seen.
                int n = codec.encode(new Packet.Ping(99, batch), out);
                socket.send(new DatagramPacket(out, n, to));
                DatagramPacket reply = new DatagramPacket(in, in.length);
                socket.receive(reply);
                Packet.Pong pong = assertInstanceOf(Packet.Pong.class, codec.decode(in, reply.getLength()));
                assertEquals(batch, pong.seq());
                assertEquals(PacketCodec.fingerprint(parent.clock.domainId()), pong.domainFingerprint());
            }
            int n = codec.encode(new Packet.Hello(5, 5, "tsc@some-node"), out);
            socket.send(new DatagramPacket(out, n, to));
            DatagramPacket reply = new DatagramPacket(in, in.length);
            socket.receive(reply);
            Packet.Welcome welcome = assertInstanceOf(Packet.Welcome.class, codec.decode(in, reply.getLength()));
            assertEquals(parent.clock.domainId(), welcome.domainId());
            assertEquals(garbage, server.count(CalibrationServer.Count.REJECTED), server.counts());
            assertEquals(100, server.count(CalibrationServer.Count.PINGS));
            assertEquals(0, server.count(CalibrationServer.Count.ERRORS));
            assertTrue(server.rejected(MalformedPacketException.Reason.AUTH) > 0, server.counts());
            assertTrue(server.rejected(MalformedPacketException.Reason.TRUNCATED) > 0, server.counts());
        }
    }

    @Test
    void anOpenServerNeverAnswersWithMoreBytesThanItGotAndSaysOnceWhenAPeerIsOld() throws Exception {
        TruthClock parent = new TruthClock("rate=1.25,offset=1000");
        PacketCodec codec = PacketCodec.open();
        java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        String longest = "n".repeat(Packet.MAX_TEXT_BYTES);
        try (CalibrationServer server = CalibrationServer.start(0, parent.clock, Optional.empty(), log::add, warnings::add);
             DatagramSocket socket = new DatagramSocket()) {
            InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port());
            socket.setSoTimeout((int) Nodes.DEADLINE_MILLIS);
            long t0 = System.nanoTime();
            for (int i = 0; i < 3 * RateLimitedLog.BURST; i++) {
                Packet request = i % 2 == 0 ? new Packet.Hello(i, i, i % 4 == 0 ? "h" : longest) : new Packet.Ping(i, i);
                int n = codec.encode(request, out);
                socket.send(new DatagramPacket(out, n, to));
                DatagramPacket reply = new DatagramPacket(in, in.length);
                socket.receive(reply);
                assertTrue(reply.getLength() <= n, "reply of " + reply.getLength() + " bytes to a request of " + n);
            }
            // Old peers: version 1 packets, many of them, one line.
            for (int i = 0; i < 50; i++) {
                int n = codec.encode(new Packet.Ping(i, i), out);
                out[4] = 1;
                socket.send(new DatagramPacket(out, n, to));
            }
            int n = codec.encode(new Packet.Ping(7, 7), out);
            socket.send(new DatagramPacket(out, n, to));
            socket.receive(new DatagramPacket(in, in.length));
            assertEquals(50, server.rejected(MalformedPacketException.Reason.VERSION), server.counts());
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("version 1") && warnings.get(0).contains("same dprof"), warnings.get(0));
            // A flood of hellos is not a flood of lines: a burst, and one more per second the loop took.
            long seconds = (System.nanoTime() - t0) / RateLimitedLog.REFILL_NANOS;
            assertTrue(log.size() >= RateLimitedLog.BURST && log.size() <= RateLimitedLog.BURST + seconds + 1,
                    log.size() + " lines in " + seconds + " s");
            assertEquals(0, server.count(CalibrationServer.Count.AMPLIFICATION));
        }
    }

    /** Random bytes, truncated, forged or bit-flipped genuine packets, empty datagrams. */
    /** A datagram the server must reject: random bytes, a cut, forged or flipped packet, or nothing. */
    static byte[] junk(Random random, PacketCodec codec, PacketCodec forger) {
        byte[] buf = new byte[PacketCodec.MAX_BYTES];
        Packet sample = random.nextBoolean() ? new Packet.Ping(random.nextLong(), random.nextLong())
                : new Packet.Hello(random.nextLong(), random.nextLong(), "tsc@node");
        switch (random.nextInt(5)) {
            case 0 -> {
                byte[] b = new byte[random.nextInt(200)];
                random.nextBytes(b);
                return b;
            }
            case 1 -> {
                int n = codec.encode(sample, buf);
                return Arrays.copyOf(buf, random.nextInt(n));
            }
            case 2 -> {
                return Arrays.copyOf(buf, forger.encode(sample, buf));
            }
            case 3 -> {
                byte[] b = Arrays.copyOf(buf, codec.encode(sample, buf));
                int bit = random.nextInt(b.length * 8);
                b[bit / 8] ^= (byte) (1 << (bit % 8));
                return b;
            }
            default -> {
                return new byte[0];
            }
        }
    }
}
