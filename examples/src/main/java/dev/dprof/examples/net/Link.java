package dev.dprof.examples.net;

import java.io.Closeable;
import java.io.IOException;

/**
 * One blocking TCP connection carrying {@link Message}s. Two transports implement it, so that a
 * profiler watching the JDK's socket code sees both: {@link StreamLink} ({@code java.net.Socket}
 * streams) and {@link ChannelLink} (a blocking NIO {@code SocketChannel}).
 *
 * <p>A send and a receive may run at the same time in two threads; two sends (or two receives)
 * may not.
 */
public sealed interface Link extends Closeable permits StreamLink, ChannelLink {
    /** Writes the whole message; returns once its bytes are handed to the kernel. */
    void send(Message message) throws IOException;

    /**
     * Blocks until a whole message has arrived and stores it in {@code into} (channel, seq,
     * payload). A connection closed between two messages is an {@link java.io.EOFException}.
     */
    void receive(Message into) throws IOException;

    /** Writes one int straight away (the handshake before any message). */
    void sendInt(int value) throws IOException;

    /** Reads one int written by {@link #sendInt}. */
    int receiveInt() throws IOException;

    /** Closes every link given (null slots skipped), ignoring failures: this runs after the one worth reporting. */
    static void closeAll(Link[]... groups) {
        for (Link[] links : groups) {
            for (Link link : links) {
                if (link != null) {
                    try {
                        link.close();
                    } catch (IOException e) {
                        // the first failure is the one worth reporting
                    }
                }
            }
        }
    }
}
