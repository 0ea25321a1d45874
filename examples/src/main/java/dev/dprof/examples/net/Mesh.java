package dev.dprof.examples.net;

import java.io.Closeable;
import java.io.IOException;
import java.io.StreamCorruptedException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A full mesh of blocking TCP connections between N ranks, with point-to-point messages and the
 * collectives the examples need. Every pair of ranks holds two connections: a
 * {@code java.net.Socket} one ({@link StreamLink}), which carries the collectives through rank 0
 * ({@link #allReduce}, {@link #broadcast}, {@link #barrier}), and an NIO {@code SocketChannel}
 * one ({@link ChannelLink}), which carries the pairwise {@link #exchange}s.
 *
 * <p>Every message goes through {@link #send(int, Message)} and {@link #receive(int, Message)},
 * so a profiler that watches those two methods sees all traffic: the message's {@code channel}
 * field names the collective and its {@code seq} field is unique within that channel across the
 * cluster ({@link #seqOf}), which pairs each send with its receive.
 *
 * <p>Waiting always blocks in the kernel (a socket read), never spins. One thread at a time may
 * use a mesh: the examples let the last of a process's threads to reach the barrier do it.
 */
public final class Mesh implements Closeable {
    /** Contributions to and results of {@link #allReduce}. */
    public static final int ALL_REDUCE = 1;
    /** {@link #broadcast}. */
    public static final int BROADCAST = 2;
    /** {@link #barrier}. */
    public static final int BARRIER = 3;
    /** {@link #exchange} and {@link #allGather}: the only channel carried by the NIO links. */
    public static final int EXCHANGE = 4;
    private static final int CHANNELS = 5;
    private static final int ROOT = 0;

    private final int rank;
    private final int size;
    private final Link[] streams;
    private final Link[] channels;
    private final long[][] sent;
    private final long[][] received;
    private final Message out = new Message();
    private final Message in = new Message();
    /** Broadcasts this rank has finished: every rank calls them in the same order, so the count names one. */
    private long broadcasts;

    private Mesh(int rank, Link[] streams, Link[] channels) {
        this.rank = rank;
        this.size = streams.length;
        this.streams = streams;
        this.channels = channels;
        this.sent = new long[size][CHANNELS];
        this.received = new long[size][CHANNELS];
    }

    /**
     * Connects rank {@code rank} to all others. Listens on {@code peers.get(rank)} (plain
     * sockets) and on a free port of the same host (channels), which it tells each peer in the
     * handshake; connects to lower ranks, accepts higher ones. Peers that are not up yet are
     * retried until {@code timeout}.
     */
    public static Mesh connect(int rank, List<InetSocketAddress> peers, Duration timeout) throws IOException {
        Rendezvous.Links links = Rendezvous.connect(rank, peers, timeout);
        return new Mesh(rank, links.streams(), links.channels());
    }

    /** Parses {@code host:port,host:port,...}. */
    public static List<InetSocketAddress> parsePeers(String text) {
        List<InetSocketAddress> peers = new ArrayList<>();
        for (String part : text.split(",")) {
            int colon = part.lastIndexOf(':');
            if (colon <= 0 || colon == part.length() - 1) {
                throw new IllegalArgumentException("peer '" + part + "' is not host:port");
            }
            int port = Integer.parseInt(part.substring(colon + 1).trim());
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("peer '" + part + "': port out of range");
            }
            peers.add(new InetSocketAddress(part.substring(0, colon).trim(), port));
        }
        return peers;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    /**
     * The sequence number of the {@code count}-th message from {@code from} to {@code to} on one
     * channel: both ranks in the top bits, so it is unique within the channel across the cluster.
     */
    public static long seqOf(int from, int to, long count) {
        return (long) from << 48 | (long) to << 32 | count;
    }

    /**
     * Sets {@code message}'s channel and the seq of the next message to {@code peer} on it. A
     * separate step from {@link #send} so that the seq is already in the message when a send is
     * entered: that is when a profiler reads a send's key.
     */
    public Message address(int peer, int channel, Message message) {
        checkPeer(peer);
        checkChannel(channel);
        message.channel = channel;
        message.seq = seqOf(rank, peer, sent[peer][channel]);
        return message;
    }

    /** Sends a message {@linkplain #address addressed} to {@code peer}; blocks until written. */
    public void send(int peer, Message message) throws IOException {
        checkPeer(peer);
        checkChannel(message.channel);
        if (message.seq != seqOf(rank, peer, sent[peer][message.channel])) {
            throw new IllegalArgumentException(message + " is not addressed to rank " + peer + " (call address first)");
        }
        sent[peer][message.channel]++;
        link(peer, message.channel).send(message);
    }

    /**
     * Blocks until the next message from {@code peer} on channel {@code into.channel} has arrived
     * and stores it in {@code into}; its seq is checked against the expected one, so a protocol
     * slip fails loudly instead of mixing up iterations.
     */
    public void receive(int peer, Message into) throws IOException {
        checkPeer(peer);
        int channel = into.channel;
        checkChannel(channel);
        link(peer, channel).receive(into);
        long expected = seqOf(peer, rank, received[peer][channel]);
        if (into.channel != channel || into.seq != expected) {
            throw new StreamCorruptedException("rank " + rank + " expected seq " + Long.toHexString(expected)
                    + " on channel " + channel + " from rank " + peer + ", got " + into);
        }
        received[peer][channel]++;
    }

    /** Element-wise sum over all ranks, in place; every rank ends with the same bits. */
    public void allReduce(double[] values) throws IOException {
        double[] part = new double[values.length];
        reduce(values.length, Double.BYTES, m -> m.putDoubles(values, 0, values.length), m -> {
            m.getDoubles(part, 0);
            for (int i = 0; i < values.length; i++) {
                values[i] += part[i];
            }
        }, m -> m.getDoubles(values, 0));
    }

    /** Element-wise sum over all ranks, in place. */
    public void allReduce(long[] values) throws IOException {
        long[] part = new long[values.length];
        reduce(values.length, Long.BYTES, m -> m.putLongs(values, 0, values.length), m -> {
            m.getLongs(part, 0);
            for (int i = 0; i < values.length; i++) {
                values[i] += part[i];
            }
        }, m -> m.getLongs(values, 0));
    }

    /** Element-wise sum over all ranks, in place. */
    public void allReduce(int[] values) throws IOException {
        int[] part = new int[values.length];
        reduce(values.length, Integer.BYTES, m -> m.putInts(values, 0, values.length), m -> {
            m.getInts(part, 0);
            for (int i = 0; i < values.length; i++) {
                values[i] += part[i];
            }
        }, m -> m.getInts(values, 0));
    }

    /**
     * Reduce to rank 0, then send its result to all: rank 0 adds the others' parts in rank order
     * and sends one message to everyone, so the result is bitwise the same on every rank.
     */
    private void reduce(int count, int width, Consumer<Message> own, Consumer<Message> add,
                        Consumer<Message> result) throws IOException {
        if (size == 1) {
            return;
        }
        if (rank == ROOT) {
            for (int peer = 1; peer < size; peer++) {
                receiveInto(peer, ALL_REDUCE, count, width);
                add.accept(in);
            }
            own.accept(out);
            sendToAll(ALL_REDUCE);
        } else {
            own.accept(out);
            send(ROOT, address(ROOT, ALL_REDUCE, out));
            receiveInto(ROOT, ALL_REDUCE, count, width);
            result.accept(in);
        }
    }

    /** Copies {@code root}'s values to every rank. */
    public void broadcast(double[] values, int root) throws IOException {
        broadcast(root, values.length, Double.BYTES, m -> m.putDoubles(values, 0, values.length),
                m -> m.getDoubles(values, 0));
    }

    /** Copies {@code root}'s values to every rank. */
    public void broadcast(long[] values, int root) throws IOException {
        broadcast(root, values.length, Long.BYTES, m -> m.putLongs(values, 0, values.length),
                m -> m.getLongs(values, 0));
    }

    private void broadcast(int root, int count, int width, Consumer<Message> own, Consumer<Message> result)
            throws IOException {
        checkRank(root);
        if (rank == root) {
            own.accept(out);
            for (int peer = 0; peer < size; peer++) {
                if (peer != rank) {
                    send(peer, address(peer, BROADCAST, out));
                }
            }
        } else {
            receiveInto(root, BROADCAST, count, width);
            result.accept(in);
        }
        broadcasts++;
    }

    /**
     * How many broadcasts this rank has finished; read as a broadcast starts, it is the same on every
     * rank for the same broadcast (a profiler's instance key for it, see examples/kmeans/dprof-distributed.yaml).
     */
    public long broadcasts() {
        return broadcasts;
    }

    /** Returns once every rank has called it. */
    public void barrier() throws IOException {
        if (size == 1) {
            return;
        }
        out.resize(0);
        if (rank == ROOT) {
            for (int peer = 1; peer < size; peer++) {
                receiveInto(peer, BARRIER, 0, 1);
            }
            sendToAll(BARRIER);
        } else {
            send(ROOT, address(ROOT, BARRIER, out));
            receiveInto(ROOT, BARRIER, 0, 1);
        }
    }

    /**
     * Sends {@code outgoing} to {@code peer} and receives {@code peer}'s message into
     * {@code incoming}, on the {@link #EXCHANGE} channel. The lower rank sends first: two blocking
     * sends of large messages towards each other could both wait for buffer space forever.
     */
    public void exchange(int peer, Message outgoing, Message incoming) throws IOException {
        address(peer, EXCHANGE, outgoing);
        incoming.channel = EXCHANGE;
        if (rank < peer) {
            send(peer, outgoing);
            receive(peer, incoming);
        } else {
            receive(peer, incoming);
            send(peer, outgoing);
        }
    }

    /**
     * Rank r owns {@code values[bounds[r], bounds[r+1])}; afterwards every rank holds every
     * segment. Pairwise {@link #exchange}s in round-robin rounds (each round a perfect matching),
     * so every exchange's partner is doing the same exchange at the same time.
     */
    public void allGather(double[] values, int[] bounds) throws IOException {
        checkBounds(bounds, values.length);
        gather(bounds, Double.BYTES, (m, from, to) -> m.putDoubles(values, from, to),
                (m, at) -> m.getDoubles(values, at));
    }

    /** {@link #allGather(double[], int[])} for ints. */
    public void allGather(int[] values, int[] bounds) throws IOException {
        checkBounds(bounds, values.length);
        gather(bounds, Integer.BYTES, (m, from, to) -> m.putInts(values, from, to), (m, at) -> m.getInts(values, at));
    }

    /** Fills a message with a segment of values. */
    private interface Put {
        void put(Message m, int from, int to);
    }

    /** Copies a message's values into place. */
    private interface Get {
        void get(Message m, int at);
    }

    private void gather(int[] bounds, int width, Put put, Get get) throws IOException {
        for (int round = 0; round < rounds(); round++) {
            int peer = partner(rank, round);
            if (peer < size) {
                put.put(out, bounds[rank], bounds[rank + 1]);
                exchange(peer, out, in);
                checkCount(peer, bounds[peer + 1] - bounds[peer], width);
                get.get(in, bounds[peer]);
            }
        }
    }

    /**
     * Personalised all-to-all: {@code outgoing[p]} goes to rank p, and the result's entry p is
     * what rank p sent here (entry {@code rank} is {@code outgoing[rank]} itself). Same rounds of
     * pairwise exchanges as {@link #allGather}.
     */
    public int[][] allToAll(int[][] outgoing) throws IOException {
        if (outgoing.length != size) {
            throw new IllegalArgumentException("need one array per rank, got " + outgoing.length);
        }
        int[][] incoming = new int[size][];
        incoming[rank] = outgoing[rank];
        for (int round = 0; round < rounds(); round++) {
            int peer = partner(rank, round);
            if (peer < size) {
                exchange(peer, out.putInts(outgoing[peer], 0, outgoing[peer].length), in);
                incoming[peer] = new int[in.count(Integer.BYTES)];
                in.getInts(incoming[peer], 0);
            }
        }
        return incoming;
    }

    /** Rounds of the circle-method tournament: players rounded up to even, minus one. */
    private int rounds() {
        return size % 2 == 0 ? size - 1 : size;
    }

    /** The partner of {@code r} in {@code round}; {@code >= size} is a bye when size is odd. */
    static int partner(int r, int round, int size) {
        int players = size % 2 == 0 ? size : size + 1;
        int fixed = players - 1;
        if (r == fixed) {
            return round;
        }
        if (r == round) {
            return fixed;
        }
        return Math.floorMod(2 * round - r, fixed);
    }

    private int partner(int r, int round) {
        return partner(r, round, size);
    }

    private void sendToAll(int channel) throws IOException {
        for (int peer = 0; peer < size; peer++) {
            if (peer != rank) {
                send(peer, address(peer, channel, out));
            }
        }
    }

    private void receiveInto(int peer, int channel, int count, int width) throws IOException {
        in.channel = channel;
        receive(peer, in);
        checkCount(peer, count, width);
    }

    private void checkCount(int peer, int count, int width) throws StreamCorruptedException {
        if (in.length() != count * width) {
            throw new StreamCorruptedException("rank " + peer + " sent " + in.length() + " bytes, expected "
                    + count * width + " (do all ranks run with the same settings?)");
        }
    }

    private void checkBounds(int[] bounds, int length) {
        if (bounds.length != size + 1 || bounds[0] != 0 || bounds[size] != length) {
            throw new IllegalArgumentException("bounds must be " + (size + 1) + " offsets from 0 to " + length);
        }
    }

    private Link link(int peer, int channel) {
        return channel == EXCHANGE ? channels[peer] : streams[peer];
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= size || peer == rank) {
            throw new IllegalArgumentException("rank " + peer + " is not a peer of rank " + rank + " of " + size);
        }
    }

    private void checkRank(int r) {
        if (r < 0 || r >= size) {
            throw new IllegalArgumentException("rank " + r + " is not in 0.." + (size - 1));
        }
    }

    private static void checkChannel(int channel) {
        if (channel <= 0 || channel >= CHANNELS) {
            throw new IllegalArgumentException("unknown channel " + channel);
        }
    }

    /** Closes every connection; a thread blocked in a receive then fails instead of waiting on. */
    @Override
    public void close() {
        Link.closeAll(streams, channels);
    }
}
