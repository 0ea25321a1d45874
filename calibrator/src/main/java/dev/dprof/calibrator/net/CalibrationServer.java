package dev.dprof.calibrator.net;

import dev.dprof.clock.DomainClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
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
 * it logs because of a datagram passes a {@link RateLimitedLog}. Serving allocates nothing per
 * datagram but what the JDK makes for a sender's address (see {@code serve}), so a flood cannot grow
 * the heap, whatever heap limit the JVM was started with.
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

    private final DatagramChannel channel;
    private final int port;
    private final DomainClock clock;
    private final PacketCodec codec;
    private final long fingerprint;
    private final byte[] domainId;
    private final RateLimitedLog log;
    private final Consumer<String> warn;
    /** Whether a packet of another protocol version was already reported (once per run is enough). */
    private boolean versionTold;
    private final Counters<Count> counts = new Counters<>(Count.class);
    private final Counters<MalformedPacketException.Reason> rejected =
            new Counters<>(MalformedPacketException.Reason.class);
    private final Thread thread;

    private CalibrationServer(DatagramChannel channel, DomainClock clock, Optional<SharedKey> key, Consumer<String> log,
                              Consumer<String> warn) throws IOException {
        this.channel = channel;
        this.port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
        this.clock = clock;
        this.codec = PacketCodec.of(key);
        this.fingerprint = PacketCodec.fingerprint(clock.domainId());
        this.domainId = PacketCodec.text(clock.domainId());
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
        DatagramChannel channel = DatagramChannel.open();
        CalibrationServer server;
        try {
            channel.bind(new InetSocketAddress(port));
            server = new CalibrationServer(channel, clock, key, log, warn);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
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
        return port;
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

    /** The serving thread's id, for a test that counts what it allocates. */
    long threadId() {
        return thread.getId();
    }

    /**
     * Receive, check, reply: in steady state this allocates nothing of its own (direct buffers and
     * arrays made once, a result code instead of an exception, no packet objects), so the heap
     * stays as it is under any flood. The one allocation left is the JDK's: the sender's address,
     * made when it differs from the previous datagram's (DatagramChannel keeps the last one), an
     * object that dies at once.
     */
    private void serve() {
        ByteBuffer received = ByteBuffer.allocateDirect(PacketCodec.MAX_BYTES);
        ByteBuffer sending = ByteBuffer.allocateDirect(PacketCodec.MAX_BYTES);
        byte[] in = new byte[PacketCodec.MAX_BYTES];
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        while (channel.isOpen()) {
            received.clear();
            SocketAddress sender;
            try {
                sender = channel.receive(received);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                counts.add(Count.ERRORS);
                continue;
            }
            received.flip();
            int length = received.remaining();
            received.get(in, 0, length);
            try {
                int n = reply(in, length, out, sender);
                if (n > 0) {
                    sending.clear();
                    sending.put(out, 0, n).flip();
                    channel.send(sending, sender);
                }
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                counts.add(Count.SEND_FAILED);
            } catch (RuntimeException e) {
                counts.add(Count.ERRORS);
            }
        }
    }

    /** Counts one datagram and writes its reply to {@code out}; returns the reply's length, 0 for none. */
    private int reply(byte[] in, int length, byte[] out, SocketAddress sender) {
        int type = codec.parse(in, length);
        int n;
        if (type == PacketCodec.TYPE_PING) {
            long a = clock.now();
            n = codec.encodePong(codec.session(), codec.seq(), a, fingerprint, out);
            counts.add(Count.PINGS);
        } else if (type == PacketCodec.TYPE_HELLO) {
            n = codec.encodeWelcome(codec.session(), codec.seq(), domainId, out);
            counts.add(Count.HELLOS);
            long droppedBefore = log.admit();
            if (droppedBefore >= 0) {
                log.emit("hello from " + codec.text(in) + " at " + sender, droppedBefore);
            }
        } else if (type == PacketCodec.REJECTED) {
            counts.add(Count.REJECTED);
            rejected.add(codec.rejectedReason());
            if (codec.rejectedReason() == MalformedPacketException.Reason.VERSION && !versionTold) {
                versionTold = true;
                String message = codec.rejection().getMessage();
                warn.accept("calibration packets from " + sender + " are dropped: "
                        + message.substring(message.indexOf(' ') + 1) + "; run the same dprof on both ends");
            }
            return 0;
        } else {
            counts.add(Count.IGNORED);
            return 0;
        }
        if (n > length && !codec.authenticated()) {
            counts.add(Count.AMPLIFICATION);
            return 0;
        }
        return n;
    }

    /** Stops serving and releases the port; waits for the serving thread. */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing: the port is released either way
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
