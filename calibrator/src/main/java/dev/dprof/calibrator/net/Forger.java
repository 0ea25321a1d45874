package dev.dprof.calibrator.net;

import dev.dprof.clock.DomainClock;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Optional;

/**
 * An attacker on the path between one node and its parent, for test beds: it relays every
 * datagram both ways, and answers every ping itself first with a pong whose {@code a} is the
 * parent's clock shifted by a fixed number of ticks — a false zero, a forged offset that no
 * drift check could see, since every zero would be shifted alike. It reads the session and
 * sequence number from the ping's header, as anyone on the path can, but it does not know the
 * shared key, so its pongs carry no tag.
 *
 * <p>What must happen (docs/CALIBRATION.md, "Forgers"): with a key, the node rejects every forged
 * pong ({@code AUTH}) and measures true zeros from the parent's answers; without one, each ping
 * is answered twice with different ticks, and the node keeps no zero from such a ping. Either way
 * no bound built from the node's file misses the truth. A forger that could also drop the
 * parent's answers would not be seen without a key: that is what the key is for.
 *
 * <h2>Implementation notes</h2>
 * The forged tick is read from {@code parentClock} (the parent's simulated clock, reproduced in
 * this process: every simulated machine of a test bed shares the host's TSC), right before the
 * forged pong is sent and before the ping is relayed, so the forger always answers first.
 */
public final class Forger implements AutoCloseable {
    /** What the forger counts. */
    public enum Count {
        /** Pings seen on their way to the parent. */
        PINGS,
        /** Forged pongs sent to the node. */
        FORGED,
        /** Datagrams relayed to the parent. */
        FORWARDED,
        /** Datagrams relayed back to the node. */
        RETURNED,
        /** Datagrams the forger failed to send or receive. */
        ERRORS
    }

    private final DatagramSocket front;
    private final DatagramSocket back;
    private final DomainClock parentClock;
    private final long shiftTicks;
    private final long fingerprint;
    private final PacketCodec codec = PacketCodec.open();
    private final Counters<Count> counts = new Counters<>(Count.class);
    private volatile SocketAddress node;
    private volatile boolean closed;

    private Forger(DatagramSocket front, DatagramSocket back, DomainClock parentClock, long shiftTicks) {
        this.front = front;
        this.back = back;
        this.parentClock = parentClock;
        this.shiftTicks = shiftTicks;
        this.fingerprint = PacketCodec.fingerprint(parentClock.domainId());
    }

    /**
     * Listens on a free loopback port (see {@link #port()}) and relays to {@code parent}, on two
     * daemon threads.
     *
     * @param parentClock the parent's clock domain, as the parent reads it
     * @param shiftTicks  what every forged {@code a} adds to the parent's true tick
     */
    public static Forger start(InetSocketAddress parent, DomainClock parentClock, long shiftTicks) throws IOException {
        DatagramSocket front = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        DatagramSocket back;
        try {
            back = new DatagramSocket();
            back.connect(parent);
        } catch (IOException | RuntimeException e) {
            front.close();
            throw e;
        }
        Forger forger = new Forger(front, back, parentClock, shiftTicks);
        daemon(forger::fromNode, "dprof-forger-node").start();
        daemon(forger::fromParent, "dprof-forger-parent").start();
        return forger;
    }

    /** The port the node must take for its parent's. */
    public int port() {
        return front.getLocalPort();
    }

    public long count(Count c) {
        return counts.get(c);
    }

    /** All non-zero counters as {@code name=value}. */
    public String counts() {
        return counts.toString();
    }

    private void fromNode() {
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        DatagramPacket packet = new DatagramPacket(in, in.length);
        while (!closed) {
            try {
                packet.setData(in);
                front.receive(packet);
                node = packet.getSocketAddress();
                Optional<long[]> ping = PacketCodec.peekPing(in, packet.getLength());
                if (ping.isPresent()) {
                    counts.add(Count.PINGS);
                    long a = parentClock.now() + shiftTicks;
                    int n = codec.encode(new Packet.Pong(ping.get()[0], ping.get()[1], a, fingerprint), out);
                    front.send(new DatagramPacket(out, n, node));
                    counts.add(Count.FORGED);
                }
                back.send(new DatagramPacket(in, packet.getLength()));
                counts.add(Count.FORWARDED);
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    counts.add(Count.ERRORS);
                }
            }
        }
    }

    private void fromParent() {
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        DatagramPacket packet = new DatagramPacket(in, in.length);
        while (!closed) {
            try {
                packet.setData(in);
                back.receive(packet);
                SocketAddress to = node;
                if (to != null) {
                    front.send(new DatagramPacket(in, packet.getLength(), to));
                    counts.add(Count.RETURNED);
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    counts.add(Count.ERRORS);
                }
            }
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        closed = true;
        front.close();
        back.close();
    }
}
