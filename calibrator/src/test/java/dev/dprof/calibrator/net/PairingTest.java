package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scripted parent that answers every ping with everything a bad network or an attacker could
 * deliver first — the previous ping's pong, another session's pong, garbage, a pong from another
 * domain, a packet of the wrong type — then the true pong, then a duplicate of it. The node must
 * pair each ping with its own pong only. Deterministic: the order of arrival is the order sent.
 * A second script answers every ping twice with different ticks, as a forger racing the parent
 * would: no such round trip may become a zero.
 */
class PairingTest {
    private static final String PARENT = "tsc@scripted-parent";
    /**
     * Three epochs of 5 and the final epoch of at least 4 × 5 (CalibrationNode.EDGE_BURST_FACTOR);
     * the final one may go on until it is as tight as the best before it.
     */
    private static final int MIN_PINGS = 3 * 5 + CalibrationNode.EDGE_BURST_FACTOR * 5;

    @Test
    void onlyTheReplyToTheCurrentPingIsEverPaired(@TempDir Path dir) throws Exception {
        TruthClock node = new TruthClock("rate=1.3,offset=77");
        try (DatagramSocket parent = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Thread script = new Thread(() -> serve(parent), "scripted-parent");
            script.setDaemon(true);
            script.start();
            CalibrationNode n = CalibrationNode.join(Nodes.settings(parent.getLocalPort(), dir, 60_000, 5,
                    Nodes.DEADLINE_MILLIS, Optional.empty()), node.clock);
            List<Long> as = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Burst b = n.burst();
                assertEquals(5, b.roundTrips().size());
                b.roundTrips().forEach(z -> as.add(z.a()));
            }
            n.stop();
            DomainCalibration cal = CalibrationFile.read(n.file());
            assertEquals(Optional.of(PARENT), cal.parentDomainId());
            assertEquals(4, cal.zeros().size());
            assertTrue(cal.complete());
            // The n-th ping (from 1) is answered truly with a = 1000 + n.
            for (int i = 0; i < as.size(); i++) {
                assertEquals(1001 + i, as.get(i), "round trip " + i + " paired with the wrong pong");
            }
            for (Zero z : cal.zeros()) {
                assertTrue(z.a() > 1000);
            }
            long pings = n.count(CalibrationNode.Count.REPLIES);
            assertTrue(pings >= MIN_PINGS, n.counts());
            assertEquals(pings, n.count(CalibrationNode.Count.REJECTED));
            assertEquals(pings, n.count(CalibrationNode.Count.FOREIGN));
            // Per ping: the previous ping's pong again, another session's, a welcome, the duplicate of its own;
            // each epoch listens after its last ping, so the last duplicate is read too.
            assertEquals(4 * pings, n.count(CalibrationNode.Count.STALE), n.counts());
            assertEquals(0, n.count(CalibrationNode.Count.CONFLICTS), n.counts());
            assertEquals(0, n.count(CalibrationNode.Count.TIMEOUTS));
            assertFalse(n.failure().isPresent());
        }
    }

    @Test
    void aPingAnsweredTwiceWithDifferentTicksNeverBecomesAZero(@TempDir Path dir) throws Exception {
        TruthClock node = new TruthClock("rate=1.3,offset=77");
        try (DatagramSocket parent = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Thread script = new Thread(() -> answerTwice(parent), "racing-parent");
            script.setDaemon(true);
            script.start();
            CalibrationNode n = CalibrationNode.join(Nodes.settings(parent.getLocalPort(), dir, 60_000, 5,
                    Nodes.DEADLINE_MILLIS, Optional.empty()), node.clock);
            for (int i = 0; i < 3; i++) {
                Burst b = n.burst();
                assertEquals(0, b.roundTrips().size(), "no zero from a ping answered twice");
                assertEquals(5, b.conflicted());
                assertTrue(b.tightest().isEmpty());
            }
            n.stop();
            DomainCalibration cal = CalibrationFile.read(n.file());
            assertEquals(0, cal.zeros().size());
            assertTrue(cal.complete());
            assertEquals(n.count(CalibrationNode.Count.REPLIES), n.count(CalibrationNode.Count.CONFLICTS), n.counts());
            assertEquals(n.count(CalibrationNode.Count.EPOCHS), n.count(CalibrationNode.Count.MISSES));
        }
    }

    @Test
    void sequenceNumbersAreNotACounter(@TempDir Path dir) throws Exception {
        TruthClock node = new TruthClock("rate=1.3,offset=77");
        List<Long> seqs = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (DatagramSocket parent = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Thread script = new Thread(() -> record(parent, seqs), "recording-parent");
            script.setDaemon(true);
            script.start();
            try (CalibrationNode n = CalibrationNode.join(Nodes.settings(parent.getLocalPort(), dir, 60_000, 32,
                    Nodes.DEADLINE_MILLIS, Optional.empty()), node.clock)) {
                n.burst();
            }
        }
        assertTrue(seqs.size() > 32, seqs.toString());
        long differences = java.util.stream.IntStream.range(1, seqs.size())
                .mapToLong(i -> seqs.get(i) - seqs.get(i - 1)).distinct().count();
        // A counter, or any fixed stride, would give one difference; random 64-bit numbers give all distinct.
        assertEquals(seqs.size() - 1, differences, seqs.toString());
        assertEquals(seqs.size(), seqs.stream().distinct().count());
    }

    private static void serve(DatagramSocket socket) {
        PacketCodec codec = PacketCodec.open();
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        long fingerprint = PacketCodec.fingerprint(PARENT);
        long answered = 0;
        Packet.Pong previous = null;
        try {
            while (true) {
                DatagramPacket request = new DatagramPacket(in, in.length);
                socket.receive(request);
                Packet p = codec.decode(in, request.getLength());
                SocketAddress to = request.getSocketAddress();
                long session = p.session();
                long seq = p.seq();
                if (p instanceof Packet.Hello) {
                    send(socket, codec, to, new Packet.Welcome(session, seq, PARENT));
                    continue;
                }
                send(socket, codec, to, previous != null ? previous : new Packet.Pong(session, seq - 1, -1, fingerprint));
                send(socket, codec, to, new Packet.Pong(session + 1, seq, -2, fingerprint));
                socket.send(new DatagramPacket(new byte[] {'D', 'P', 'R', 'C', PacketCodec.VERSION, 4}, 6, to));
                send(socket, codec, to, new Packet.Pong(session, seq, -3, PacketCodec.fingerprint("tsc@impostor")));
                send(socket, codec, to, new Packet.Welcome(session, seq, PARENT));
                Packet.Pong truth = new Packet.Pong(session, seq, 1000 + ++answered, fingerprint);
                send(socket, codec, to, truth);
                send(socket, codec, to, truth);
                previous = truth;
            }
        } catch (IOException | MalformedPacketException e) {
            // the socket closed at the end of the test
        }
    }

    /** Answers every ping first with one tick, then with another, as a forger racing the parent would. */
    private static void answerTwice(DatagramSocket socket) {
        PacketCodec codec = PacketCodec.open();
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        long fingerprint = PacketCodec.fingerprint(PARENT);
        try {
            while (true) {
                DatagramPacket request = new DatagramPacket(in, in.length);
                socket.receive(request);
                Packet p = codec.decode(in, request.getLength());
                SocketAddress to = request.getSocketAddress();
                if (p instanceof Packet.Hello) {
                    send(socket, codec, to, new Packet.Welcome(p.session(), p.seq(), PARENT));
                    continue;
                }
                send(socket, codec, to, new Packet.Pong(p.session(), p.seq(), 2_000_000, fingerprint));
                send(socket, codec, to, new Packet.Pong(p.session(), p.seq(), 1000, fingerprint));
            }
        } catch (IOException | MalformedPacketException e) {
            // the socket closed at the end of the test
        }
    }

    /** Answers truly and records every request's sequence number, the hello's included. */
    private static void record(DatagramSocket socket, List<Long> seqs) {
        PacketCodec codec = PacketCodec.open();
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        long fingerprint = PacketCodec.fingerprint(PARENT);
        try {
            while (true) {
                DatagramPacket request = new DatagramPacket(in, in.length);
                socket.receive(request);
                Packet p = codec.decode(in, request.getLength());
                seqs.add(p.seq());
                SocketAddress to = request.getSocketAddress();
                send(socket, codec, to, p instanceof Packet.Hello ? new Packet.Welcome(p.session(), p.seq(), PARENT)
                        : new Packet.Pong(p.session(), p.seq(), 1000 + seqs.size(), fingerprint));
            }
        } catch (IOException | MalformedPacketException e) {
            // the socket closed at the end of the test
        }
    }

    private static void send(DatagramSocket socket, PacketCodec codec, SocketAddress to, Packet p) throws IOException {
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        socket.send(new DatagramPacket(out, codec.encode(p, out), to));
    }
}
