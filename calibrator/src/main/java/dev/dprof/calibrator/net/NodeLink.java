package dev.dprof.calibrator.net;

import dev.dprof.clock.DomainClock;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A node's UDP conversation with its parent: one connected socket, one random session, and a
 * fresh random sequence number for every request, both from {@link SecureRandom}, so nobody who
 * has not seen a request can answer it. The pairing rule that keeps zeros sound lives here: a
 * reply counts only for the request outstanding at that moment, with the same session and
 * sequence number, and a request is sent exactly once — a lost one is never retransmitted under
 * its number with a new {@code k1}, so no earlier transmission's reply, still waiting in the
 * socket's buffer, can be paired with a later {@code k1}.
 *
 * <p>A ping answered twice with different ticks {@code a} (its answer and a later one) is a
 * <em>conflict</em>: a duplicated ping answered twice, or a forger on the path racing the parent.
 * Both answers may be true, but the node cannot tell, so an epoch keeps no round trip that had
 * one ({@link #conflicted}); a repeated identical answer (a duplicated pong) is only stale.
 *
 * <p>Used by one thread at a time (the node serializes bursts).
 */
final class NodeLink implements AutoCloseable {
    private final DatagramSocket socket;
    private final DomainClock clock;
    private final PacketCodec codec;
    private final Counters<CalibrationNode.Count> counts;
    private final Counters<MalformedPacketException.Reason> rejected;
    private final SecureRandom random = new SecureRandom();
    private final long session = random.nextLong();
    /** The {@code a} of every ping answered in the current epoch, by sequence number. */
    private final Map<Long, Long> answered = new HashMap<>();
    /** Pings of the current epoch answered twice with different ticks. */
    private final Set<Long> conflicts = new HashSet<>();
    private final byte[] out = new byte[PacketCodec.MAX_BYTES];
    private final byte[] in = new byte[PacketCodec.MAX_BYTES];
    private final DatagramPacket send = new DatagramPacket(out, out.length);
    private final DatagramPacket receive = new DatagramPacket(in, in.length);
    /** What {@link #settle} waits for: no request is outstanding then. */
    private static final long NO_REQUEST = 0;
    /** {@code clock.now()} read right after the last datagram arrived: the candidate {@code k2}. */
    private long arrival;

    NodeLink(InetSocketAddress parent, Optional<SharedKey> key, DomainClock clock,
             Counters<CalibrationNode.Count> counts, Counters<MalformedPacketException.Reason> rejected)
            throws SocketException {
        this.socket = new DatagramSocket();
        try {
            socket.connect(parent);
        } catch (SocketException | RuntimeException e) {
            socket.close();
            throw e;
        }
        this.clock = clock;
        this.codec = PacketCodec.of(key);
        this.counts = counts;
        this.rejected = rejected;
    }

    /** Says hello; returns the parent's welcome, or empty if none came within the timeout. */
    Optional<Packet.Welcome> hello(long timeoutNanos) throws IOException {
        long seq = random.nextLong();
        send.setData(out, 0, codec.encode(new Packet.Hello(session, seq, clock.domainId()), out));
        if (!sendOnce()) {
            return Optional.empty();
        }
        return Optional.ofNullable((Packet.Welcome) await(Packet.Welcome.class, seq, timeoutNanos));
    }

    /**
     * One causal round trip (DProf Alg. 4, node-initiated): {@code k1} read right before the ping
     * leaves, {@code k2} right after the matching pong arrived, {@code a} from the pong.
     *
     * @return the round trip as a zero and its sequence number, or empty if the pong was lost,
     *         late or never matched
     */
    Optional<Trip> roundTrip(int epoch, long parentFingerprint, long timeoutNanos) throws IOException {
        long seq = random.nextLong();
        while (answered.containsKey(seq)) {
            seq = random.nextLong(); // a repeat within the epoch would make its answers ambiguous
        }
        send.setData(out, 0, codec.encode(new Packet.Ping(session, seq), out));
        long k1 = clock.now();
        if (!sendOnce()) {
            return Optional.empty();
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Packet.Pong pong = (Packet.Pong) await(Packet.Pong.class, seq, deadline - System.nanoTime());
            if (pong == null) {
                return Optional.empty();
            }
            long k2 = arrival;
            if (pong.domainFingerprint() != parentFingerprint) {
                counts.add(CalibrationNode.Count.FOREIGN);
            } else if (k2 < k1) {
                counts.add(CalibrationNode.Count.BACKWARDS);
                return Optional.empty();
            } else {
                counts.add(CalibrationNode.Count.REPLIES);
                answered.put(seq, pong.a());
                return Optional.of(new Trip(seq, new Zero(epoch, k1, pong.a(), k2)));
            }
        }
    }

    /** A round trip with the sequence number of its ping. */
    record Trip(long seq, Zero zero) {
    }

    /** Starts an epoch: the answers of earlier epochs' pings are only stale from now on. */
    void beginEpoch() {
        answered.clear();
        conflicts.clear();
    }

    /**
     * Listens for {@code nanos} without sending, so that a second answer to one of this epoch's
     * pings (a forger's, or the parent's after a forger's) is seen before the epoch keeps a zero.
     */
    void settle(long nanos) throws IOException {
        await(Packet.Pong.class, NO_REQUEST, nanos, false);
    }

    /** Whether the ping with this sequence number got two different answers in this epoch. */
    boolean conflicted(long seq) {
        return conflicts.contains(seq);
    }

    private boolean sendOnce() throws IOException {
        try {
            socket.send(send);
        } catch (PortUnreachableException e) {
            counts.add(CalibrationNode.Count.UNREACHABLE);
            return false;
        } catch (IOException e) {
            return networkError(e);
        }
        counts.add(CalibrationNode.Count.SENT);
        return true;
    }

    /**
     * Receives until a packet of {@code type} answers {@code seq} of this session, recording
     * {@link #arrival} right after each datagram; everything else is counted and dropped.
     *
     * @return the answer, or null on timeout or when the parent's port is unreachable
     */
    private Packet await(Class<? extends Packet> type, long seq, long timeoutNanos) throws IOException {
        return await(type, seq, timeoutNanos, true);
    }

    private Packet await(Class<? extends Packet> type, long seq, long timeoutNanos, boolean waiting)
            throws IOException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                if (waiting) {
                    counts.add(CalibrationNode.Count.TIMEOUTS);
                }
                return null;
            }
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, (left + 999_999) / 1_000_000)));
            receive.setData(in);
            try {
                socket.receive(receive);
            } catch (SocketTimeoutException e) {
                if (waiting) {
                    counts.add(CalibrationNode.Count.TIMEOUTS);
                }
                return null;
            } catch (PortUnreachableException e) {
                counts.add(CalibrationNode.Count.UNREACHABLE);
                return null;
            } catch (IOException e) {
                networkError(e);
                return null;
            }
            arrival = clock.now();
            Packet p;
            try {
                p = codec.decode(receive.getData(), receive.getLength());
            } catch (MalformedPacketException e) {
                counts.add(CalibrationNode.Count.REJECTED);
                rejected.add(e.reason());
                continue;
            }
            if (waiting && type.isInstance(p) && p.session() == session && p.seq() == seq) {
                return p;
            }
            if (p instanceof Packet.Pong late && late.session() == session && answered.containsKey(late.seq())
                    && answered.get(late.seq()) != late.a()) {
                if (conflicts.add(late.seq())) {
                    counts.add(CalibrationNode.Count.CONFLICTS);
                }
                continue;
            }
            counts.add(CalibrationNode.Count.STALE);
        }
    }

    /** A failure of the network (no route, interface down) loses a round trip; a closed socket ends the node. */
    private boolean networkError(IOException e) throws IOException {
        if (socket.isClosed()) {
            throw e;
        }
        counts.add(CalibrationNode.Count.NETWORK_ERRORS);
        return false;
    }

    @Override
    public void close() {
        socket.close();
    }
}
