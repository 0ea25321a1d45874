package dev.dprof.calibrator.net;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * A user-space UDP relay that makes a path as bad as a real network can be — this kernel has no
 * netem (DESIGN.md "test bed"): fixed delay, uniform jitter (which reorders packets), loss,
 * duplication, and delay on one direction only, the asymmetry that biases midpoint
 * synchronisation but cannot break a causal zero. Every decision comes from one seeded
 * {@link Random}, so a run's sequence of decisions can be reproduced.
 *
 * <p>It listens on a port and forwards each client's datagrams to the target from a socket of
 * that client's own, so the target's replies find their way back. Meant for test beds: it keeps
 * one socket per client for its lifetime.
 */
public final class UdpRelay implements AutoCloseable {
    /** Which way the delay and the jitter apply; loss and duplication apply both ways. */
    public enum Direction {
        /** Client to target and back. */
        BOTH,
        /** Client to target only. */
        FORWARD,
        /** Target to client only. */
        BACKWARD
    }

    /** What the relay counts. */
    public enum Count {
        /** Datagrams sent on to the target, copies included. */
        FORWARDED,
        /** Datagrams sent back to a client, copies included. */
        RETURNED,
        /** Datagrams dropped on purpose. */
        DROPPED,
        /** Datagrams sent twice on purpose. */
        DUPLICATED,
        /** Datagrams the relay failed to send or receive. */
        ERRORS
    }

    /**
     * How the relay degrades the path.
     *
     * @param listenPort   the port clients send to (0: any free port, see {@link UdpRelay#port()})
     * @param target       where datagrams go
     * @param delayMicros  fixed delay, &ge; 0
     * @param jitterMicros extra delay drawn uniformly from {@code [0, jitter]}, &ge; 0
     * @param loss         probability a datagram is dropped, in [0, 1]
     * @param duplicate    probability a datagram is sent twice (each copy delayed on its own), in [0, 1]
     * @param delayed      the direction(s) delay and jitter apply to
     * @param seed         seed of the decisions
     */
    public record Settings(int listenPort, InetSocketAddress target, long delayMicros, long jitterMicros,
                           double loss, double duplicate, Direction delayed, long seed) {
        public Settings {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(delayed, "delayed");
            if (listenPort < 0 || listenPort > 65535) {
                throw new IllegalArgumentException("listen port out of range: " + listenPort);
            }
            if (delayMicros < 0 || jitterMicros < 0) {
                throw new IllegalArgumentException("delay and jitter must be >= 0");
            }
            if (!(loss >= 0 && loss <= 1) || !(duplicate >= 0 && duplicate <= 1)) {
                throw new IllegalArgumentException("loss and duplication are probabilities in [0, 1]");
            }
        }
    }

    private final Settings settings;
    private final DatagramSocket front;
    private final Random random;
    private final DelayQueue<Due> queue = new DelayQueue<>();
    private final Map<SocketAddress, DatagramSocket> upstream = new ConcurrentHashMap<>();
    private final Counters<Count> counts = new Counters<>(Count.class);
    private final Thread sender;
    private volatile boolean closed;

    private UdpRelay(Settings settings, DatagramSocket front) {
        this.settings = settings;
        this.front = front;
        this.random = new Random(settings.seed());
        this.sender = daemon(this::send, "dprof-relay-send");
    }

    /** Binds the listening port and starts relaying on daemon threads. */
    public static UdpRelay start(Settings settings) throws IOException {
        UdpRelay relay = new UdpRelay(settings, new DatagramSocket(new InetSocketAddress(settings.listenPort())));
        relay.sender.start();
        daemon(relay::listen, "dprof-relay-listen").start();
        return relay;
    }

    /** The port clients send to. */
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

    private void listen() {
        byte[] buf = new byte[65_536];
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        while (!closed) {
            p.setData(buf);
            try {
                front.receive(p);
                SocketAddress client = p.getSocketAddress();
                DatagramSocket up = upstream.computeIfAbsent(client, this::openUpstream);
                schedule(up, settings.target(), Arrays.copyOf(buf, p.getLength()), Direction.FORWARD);
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    counts.add(Count.ERRORS);
                }
            }
        }
    }

    private DatagramSocket openUpstream(SocketAddress client) {
        try {
            DatagramSocket up = new DatagramSocket();
            daemon(() -> back(up, client), "dprof-relay-back").start();
            return up;
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a socket towards " + settings.target(), e);
        }
    }

    private void back(DatagramSocket up, SocketAddress client) {
        byte[] buf = new byte[65_536];
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        while (!closed) {
            p.setData(buf);
            try {
                up.receive(p);
                if (p.getSocketAddress().equals(settings.target())) {
                    schedule(front, client, Arrays.copyOf(buf, p.getLength()), Direction.BACKWARD);
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    counts.add(Count.ERRORS);
                }
            }
        }
    }

    private void schedule(DatagramSocket via, SocketAddress to, byte[] data, Direction way) {
        boolean delayed = settings.delayed() == Direction.BOTH || settings.delayed() == way;
        long[] delays;
        synchronized (random) {
            if (random.nextDouble() < settings.loss()) {
                counts.add(Count.DROPPED);
                return;
            }
            delays = new long[random.nextDouble() < settings.duplicate() ? 2 : 1];
            for (int i = 0; i < delays.length; i++) {
                long jitter = settings.jitterMicros() > 0 ? random.nextLong(settings.jitterMicros() + 1) : 0;
                delays[i] = delayed ? TimeUnit.MICROSECONDS.toNanos(settings.delayMicros() + jitter) : 0;
            }
        }
        if (delays.length == 2) {
            counts.add(Count.DUPLICATED);
        }
        long now = System.nanoTime();
        for (long d : delays) {
            queue.add(new Due(now + d, via, to, data, way));
        }
    }

    private void send() {
        while (!closed) {
            Due due;
            try {
                due = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                due.via.send(new DatagramPacket(due.data, due.data.length, due.to));
                counts.add(due.way == Direction.FORWARD ? Count.FORWARDED : Count.RETURNED);
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    counts.add(Count.ERRORS);
                }
            }
        }
    }

    /** Stops relaying and closes every socket; datagrams still waiting are dropped. */
    @Override
    public void close() {
        closed = true;
        front.close();
        upstream.values().forEach(DatagramSocket::close);
        sender.interrupt();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** A datagram waiting for its time. */
    private static final class Due implements Delayed {
        private final long at;
        private final DatagramSocket via;
        private final SocketAddress to;
        private final byte[] data;
        private final Direction way;

        Due(long at, DatagramSocket via, SocketAddress to, byte[] data, Direction way) {
            this.at = at;
            this.via = via;
            this.to = to;
            this.data = data;
            this.way = way;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(at - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(at, ((Due) o).at);
        }
    }
}
