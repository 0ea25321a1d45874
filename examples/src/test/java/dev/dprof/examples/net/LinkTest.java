package dev.dprof.examples.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.EOFException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class LinkTest {
    @Test
    void aStreamLinkAndAChannelLinkTalkToEachOther() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<SocketChannel> connecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                            listener.getLocalPort()));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            ChannelLink client = new ChannelLink(connecting.get());
            try (StreamLink server = new StreamLink(listener.accept())) {
                double[] big = new double[1 << 20];
                for (int i = 0; i < big.length; i++) {
                    big[i] = i / 3.0;
                }
                Message out = new Message(3).putDoubles(big, 0, big.length);
                out.seq = 0x1234_5678_9ABCL;
                CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                    try {
                        client.send(out);
                        client.sendInt(77);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                Message in = new Message();
                server.receive(in);
                assertEquals(3, in.channel);
                assertEquals(0x1234_5678_9ABCL, in.seq);
                double[] back = new double[big.length];
                in.getDoubles(back, 0);
                assertArrayEquals(big, back, 0);
                assertEquals(77, server.receiveInt());
                sending.get();

                server.send(new Message(9).putLongs(new long[] {-1, 2}, 0, 2));
                Message reply = new Message();
                client.receive(reply);
                long[] longs = new long[2];
                reply.getLongs(longs, 0);
                assertArrayEquals(new long[] {-1, 2}, longs);

                client.close();
                assertThrows(EOFException.class, () -> server.receive(new Message()));
            } finally {
                client.close();
            }
        }
    }
}
