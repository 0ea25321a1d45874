package dev.dprof.calibrator.net;

import dev.dprof.clock.DomainClock;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The parent side of the calibration protocol: answers {@link Packet.Hello} with its clock
 * domain and every {@link Packet.Ping} with {@code a}, a tick of its clock read after the ping
 * arrived and before the reply leaves — the middle timestamp of DProf Alg. 4 (§3.2), trapped by
 * the node between its {@code k1} and {@code k2}. It keeps no state per node, so any number of
 * nodes (and the children of a tree, §4.1) share one server.
 *
 * <p>Anything that is not a valid request is counted by reason and dropped; nothing a datagram
 * contains stops the serving thread. No reply is larger than the request that caused it unless
 * that request carried a valid tag (the codec makes every reply fit; a reply that would not is
 * refused and counted), so the server cannot amplify a spoofed sender's traffic; and every line
 * it logs because of a datagram passes a {@link RateLimitedLog}.
 */
public final class CalibrationServer implements AutoCloseable {
    /** What the server counts. */
    public enum Count {
        /** Pings answered with a pong. */
        PINGS,
        /** Hellos answered with a welcome. */
        HELLOS,
        /** Valid packets that are not requests (a pong or welcome sent to a server). */
        IGNORED,
        /** Datagrams rejected by the codec; by reason in {@link #rejected(MalformedPacketException.Reason)}. */
        REJECTED,
        /** Replies the operating system refused to send. */
        SEND_FAILED,
        /** Replies not sent because they would have been larger than an unauthenticated request. */
        AMPLIFICATION,
        /** Unexpected errors while handling one datagram (the server went on). */
        ERRORS
    }

    private final DatagramSocket socket;
    private final DomainClock clock;
    private final PacketCodec codec;
    private final long fingerprint;
    private final Consumer<String> log;
    private final Consumer<String> warn;
    /** Whether a packet of another protocol version was already reported (once per run is enough). */
    private boolean versionTold;
    private final Counters<Count> counts = new Counters<>(Count.class);
    private final Counters<MalformedPacketException.Reason> rejected =
            new Counters<>(MalformedPacketException.Reason.class);
    private final Thread thread;

    private CalibrationServer(DatagramSocket socket, DomainClock clock, Optional<SharedKey> key, Consumer<String> log,
                              Consumer<String> warn) {
        this.socket = socket;
        this.clock = clock;
        this.codec = PacketCodec.of(key);
        this.fingerprint = PacketCodec.fingerprint(clock.domainId());
        this.log = new RateLimitedLog(log);
        this.warn = warn;
        this.thread = new Thread(this::serve, "dprof-calibration-server");
        this.thread.setDaemon(true);
    }

    /**
     * Binds {@code port} on every interface (0: any free port, see {@link #port()}) and starts
     * serving on a daemon thread.
     *
     * @param log  receives one line per node that says hello, at most {@value RateLimitedLog#BURST}
     *             at once and one a second after that (pass {@code s -> {}} to stay quiet)
     * @param warn receives one line the first time a peer speaks another protocol version
     */
    public static CalibrationServer start(int port, DomainClock clock, Optional<SharedKey> key, Consumer<String> log,
                                          Consumer<String> warn) throws IOException {
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress(port));
        CalibrationServer server = new CalibrationServer(socket, clock, key, log, warn);
        server.thread.start();
        return server;
    }

    /** {@link #start(int, DomainClock, Optional, Consumer, Consumer)} with warnings going to {@code log}. */
    public static CalibrationServer start(int port, DomainClock clock, Optional<SharedKey> key, Consumer<String> log)
            throws IOException {
        return start(port, clock, key, log, log);
    }

    /** The bound port. */
    public int port() {
        return socket.getLocalPort();
    }

    public long count(Count c) {
        return counts.get(c);
    }

    public long rejected(MalformedPacketException.Reason reason) {
        return rejected.get(reason);
    }

    /** All non-zero counters as {@code name=value}, for a log line. */
    public String counts() {
        return counts + " (rejected: " + rejected + ")";
    }

    private void serve() {
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        DatagramPacket request = new DatagramPacket(in, in.length);
        DatagramPacket reply = new DatagramPacket(out, out.length);
        while (!socket.isClosed()) {
            request.setData(in);
            try {
                socket.receive(request);
            } catch (SocketException e) {
                if (socket.isClosed()) {
                    return;
                }
                counts.add(Count.ERRORS);
                continue;
            } catch (IOException e) {
                counts.add(Count.ERRORS);
                continue;
            }
            try {
                handle(request, reply, out);
            } catch (RuntimeException e) {
                counts.add(Count.ERRORS);
            }
        }
    }

    private void handle(DatagramPacket request, DatagramPacket reply, byte[] out) {
        Packet p;
        try {
            p = codec.decode(request.getData(), request.getLength());
        } catch (MalformedPacketException e) {
            counts.add(Count.REJECTED);
            rejected.add(e.reason());
            if (e.reason() == MalformedPacketException.Reason.VERSION && !versionTold) {
                versionTold = true;
                warn.accept("calibration packets from " + request.getSocketAddress() + " are dropped: "
                        + e.getMessage().substring(e.getMessage().indexOf(' ') + 1) + "; run the same dprof on both ends");
            }
            return;
        }
        int n;
        if (p instanceof Packet.Ping ping) {
            long a = clock.now();
            n = codec.encode(new Packet.Pong(ping.session(), ping.seq(), a, fingerprint), out);
            counts.add(Count.PINGS);
        } else if (p instanceof Packet.Hello hello) {
            n = codec.encode(new Packet.Welcome(hello.session(), hello.seq(), clock.domainId()), out);
            counts.add(Count.HELLOS);
            log.accept("hello from " + hello.domainId() + " at " + request.getSocketAddress());
        } else {
            counts.add(Count.IGNORED);
            return;
        }
        if (n > request.getLength() && !codec.authenticated()) {
            counts.add(Count.AMPLIFICATION);
            return;
        }
        reply.setData(out, 0, n);
        reply.setSocketAddress(request.getSocketAddress());
        try {
            socket.send(reply);
        } catch (IOException e) {
            counts.add(Count.SEND_FAILED);
        }
    }

    /** Stops serving and releases the port; waits for the serving thread. */
    @Override
    public void close() {
        socket.close();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
