package dev.dprof.examples.net;

import java.io.IOException;
import java.io.StreamCorruptedException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;

/**
 * Setting up a {@link Mesh}: two connections per pair of ranks. Each rank listens on its
 * {@code --peers} address for {@code java.net.Socket} connections and on a free port for NIO
 * channels, which it announces in the socket handshake. A rank connects to the lower ranks and
 * accepts the higher ones: a rank only ever waits for lower ranks, so the setup cannot deadlock.
 */
final class Rendezvous {
    private static final long RETRY_MILLIS = 50;

    /** By peer rank: the {@code java.net.Socket} links and the NIO links ({@code null} for self). */
    record Links(Link[] streams, Link[] channels) {
    }

    private final int rank;
    private final List<InetSocketAddress> peers;
    private final long deadline;
    private final Link[] streams;
    private final Link[] channels;
    private final int[] channelPorts;

    private Rendezvous(int rank, List<InetSocketAddress> peers, long deadline) {
        this.rank = rank;
        this.peers = peers;
        this.deadline = deadline;
        this.streams = new Link[peers.size()];
        this.channels = new Link[peers.size()];
        this.channelPorts = new int[peers.size()];
    }

    /** Connects rank {@code rank} to all others; peers not up yet are retried until {@code timeout}. */
    static Links connect(int rank, List<InetSocketAddress> peers, Duration timeout) throws IOException {
        if (rank < 0 || rank >= peers.size()) {
            throw new IllegalArgumentException("rank " + rank + " is not in 0.." + (peers.size() - 1));
        }
        Rendezvous r = new Rendezvous(rank, peers, System.nanoTime() + timeout.toNanos());
        InetSocketAddress self = peers.get(rank);
        try (ServerSocket listener = new ServerSocket();
             ServerSocketChannel channelListener = ServerSocketChannel.open()) {
            listener.setReuseAddress(true);
            try {
                listener.bind(self, peers.size());
            } catch (IOException e) {
                throw new IOException("rank " + rank + " cannot listen on " + self + ": " + e.getMessage(), e);
            }
            channelListener.bind(new InetSocketAddress(self.getAddress(), 0), peers.size());
            int channelPort = channelListener.socket().getLocalPort();
            r.connectStreams(channelPort);
            r.acceptStreams(listener, channelPort);
            r.connectChannels();
            r.acceptChannels(channelListener);
        } catch (SocketTimeoutException e) {
            Link.closeAll(r.streams, r.channels);
            throw new IOException("rank " + rank + ": peers did not connect within " + timeout, e);
        } catch (IOException | RuntimeException e) {
            Link.closeAll(r.streams, r.channels);
            throw e;
        }
        return new Links(r.streams, r.channels);
    }

    /** To each lower rank: say who we are and where our channels listen, learn where theirs do. */
    private void connectStreams(int channelPort) throws IOException {
        for (int peer = 0; peer < rank; peer++) {
            Link link = new StreamLink(connect(peers.get(peer)));
            streams[peer] = link;
            link.sendInt(rank);
            link.sendInt(channelPort);
            int answered = link.receiveInt();
            if (answered != peer) {
                throw new StreamCorruptedException(peers.get(peer) + " answered as rank " + answered
                        + ", expected " + peer + " (wrong --peers?)");
            }
            channelPorts[peer] = link.receiveInt();
        }
    }

    private void acceptStreams(ServerSocket listener, int channelPort) throws IOException {
        for (int accepted = rank + 1; accepted < peers.size(); accepted++) {
            listener.setSoTimeout(remainingMillis("rank " + rank + " waiting for higher ranks"));
            Link link = new StreamLink(listener.accept());
            int peer = link.receiveInt();
            int port = link.receiveInt();
            if (peer <= rank || peer >= peers.size() || streams[peer] != null) {
                link.close();
                throw new StreamCorruptedException("unexpected connection from rank " + peer);
            }
            streams[peer] = link;
            channelPorts[peer] = port;
            link.sendInt(rank);
            link.sendInt(channelPort);
        }
    }

    private void connectChannels() throws IOException {
        for (int peer = 0; peer < rank; peer++) {
            // the peer's channel listener is bound already: it announced its port
            Link link = new ChannelLink(SocketChannel.open(
                    new InetSocketAddress(peers.get(peer).getAddress(), channelPorts[peer])));
            channels[peer] = link;
            link.sendInt(rank);
        }
    }

    private void acceptChannels(ServerSocketChannel listener) throws IOException {
        for (int accepted = rank + 1; accepted < peers.size(); accepted++) {
            // the socket adaptor's accept honours a timeout, the channel's own does not
            listener.socket().setSoTimeout(remainingMillis("rank " + rank + " accepting channels"));
            Link link = new ChannelLink(listener.socket().accept().getChannel());
            int peer = link.receiveInt();
            if (peer <= rank || peer >= peers.size() || channels[peer] != null) {
                link.close();
                throw new StreamCorruptedException("unexpected channel from rank " + peer);
            }
            channels[peer] = link;
        }
    }

    private Socket connect(InetSocketAddress address) throws IOException {
        while (true) {
            Socket socket = new Socket();
            try {
                socket.connect(address, remainingMillis("connecting to " + address));
                return socket;
            } catch (ConnectException e) {
                socket.close();
                // the peer is not listening yet: it starts in its own JVM, at its own pace
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to " + address, interrupted);
                }
            }
        }
    }

    private int remainingMillis(String what) throws SocketTimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("timed out " + what);
        }
        return (int) Math.min(left, Integer.MAX_VALUE);
    }
}
