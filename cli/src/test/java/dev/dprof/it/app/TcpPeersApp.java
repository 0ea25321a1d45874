package dev.dprof.it.app;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A request-reply server and its clients, each client a JVM of its own, so that the TCP probes see
 * clients whose local ports collide:
 * <ul>
 * <li>{@code server CONNECTIONS ROUNDS}: listens on {@code 127.0.0.1} (prints {@code listening PORT}),
 * serves each accepted connection on a thread named {@code serve-<client address>-<k>} (the k-th
 * connection from that address), {@code ROUNDS} times a 64-byte request and a 64-byte reply, then
 * closes it first (so the client's side of the four ports is free again at once) and prints
 * {@code served} after the last;</li>
 * <li>{@code client ADDRESS PORT SERVER_PORT CONNECTIONS ROUNDS socket|channel}: binds every connection
 * to {@code ADDRESS:PORT} (with {@code SO_REUSEADDR}), one after the other on a thread named
 * {@code client-<k>}, through {@code java.net.Socket} or {@code SocketChannel}; each sends its
 * requests, reads their replies and waits for the server's close.</li>
 * </ul>
 */
public final class TcpPeersApp {
    static final int MESSAGE = 64;

    private TcpPeersApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            server(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        } else {
            client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), args[6].equals("channel"));
        }
    }

    private static void server(int connections, int rounds) throws Exception {
        try (ServerSocket listener = new ServerSocket()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            System.out.println("listening " + listener.getLocalPort());
            List<Thread> serving = new ArrayList<>();
            Map<String, Integer> perAddress = new HashMap<>();
            for (int i = 0; i < connections; i++) {
                Socket s = listener.accept();
                String from = s.getInetAddress().getHostAddress();
                int k = perAddress.merge(from, 1, Integer::sum);
                Thread t = new Thread(() -> serve(s, rounds), "serve-" + from + "-" + k);
                t.start();
                serving.add(t);
            }
            for (Thread t : serving) {
                t.join();
            }
        }
        System.out.println("served");
    }

    private static void serve(Socket s, int rounds) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            byte[] request = new byte[MESSAGE];
            for (int r = 0; r < rounds; r++) {
                in.readFully(request);
                request[0] = (byte) r;
                out.write(request);
                out.flush();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void client(String address, int port, int serverPort, int connections, int rounds, boolean channel)
            throws Exception {
        InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(address), port);
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), serverPort);
        for (int k = 1; k <= connections; k++) {
            Thread t = new Thread(() -> {
                try {
                    if (channel) {
                        overChannel(local, server, rounds);
                    } else {
                        overSocket(local, server, rounds);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, "client-" + k);
            t.start();
            t.join();
        }
        System.out.println("done");
    }

    private static void overSocket(InetSocketAddress local, InetSocketAddress server, int rounds) throws IOException {
        try (Socket s = new Socket()) {
            s.setReuseAddress(true);
            s.bind(local);
            s.connect(server);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] message = new byte[MESSAGE];
            for (int r = 0; r < rounds; r++) {
                out.write(message);
                out.flush();
                in.readFully(message);
            }
            awaitClose(in);
        }
    }

    private static void overChannel(InetSocketAddress local, InetSocketAddress server, int rounds) throws IOException {
        try (SocketChannel c = SocketChannel.open()) {
            c.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            c.bind(local);
            c.connect(server);
            ByteBuffer message = ByteBuffer.allocate(MESSAGE);
            for (int r = 0; r < rounds; r++) {
                message.clear();
                while (message.hasRemaining()) {
                    c.write(message);
                }
                message.clear();
                while (message.hasRemaining()) {
                    if (c.read(message) < 0) {
                        throw new IOException("closed early");
                    }
                }
            }
            message.clear();
            while (c.read(message) >= 0) {
                message.clear();
            }
        }
    }

    private static void awaitClose(InputStream in) throws IOException {
        while (in.read() >= 0) {
            // the server closes first
        }
    }
}
