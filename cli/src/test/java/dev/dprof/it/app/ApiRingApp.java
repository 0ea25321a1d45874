package dev.dprof.it.app;

import dev.dprof.api.DProf;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * One of N processes in a ring over {@code java.net.Socket}s, profiled through {@code dev.dprof.api}
 * calls only: {@code ApiRingApp RANK N DIR ROUNDS MESSAGES}. Rank R listens on a port of its own
 * choosing (port 0), publishes it as the file {@code DIR/port-R} (written, then renamed into place),
 * connects to rank R+1 once that rank's file appears, and accepts rank R−1: no port is ever picked
 * for another process, so no other process can take it in between. Each round R sends
 * {@code MESSAGES} messages to R+1 and receives as many from R−1, then all ranks pass a
 * cluster-wide barrier (key = round,
 * N participants) made of two token laps started by rank 0: "arrived" (rank 0 knows everyone
 * entered when it comes back) and "go" (a rank exits when it has it). Every message, tokens
 * included, is one {@code long} on the wire, the link's running count, and is announced with
 * {@code DProf.send("ring FROM>TO", count)} before it is written and {@code DProf.receive} with the
 * same channel and key after it was read; the receiver checks the count. Prints
 * {@code ring: rank R sent S received T} and exits with 0.
 */
public final class ApiRingApp {
    private static final long CONNECT_TIMEOUT_NANOS = 60_000_000_000L;

    private final DataOutputStream out;
    private final DataInputStream in;
    private final String sendChannel;
    private final String receiveChannel;
    private long sent;
    private long received;

    private ApiRingApp(Socket next, Socket previous, int rank, int nextRank, int previousRank) throws IOException {
        this.out = new DataOutputStream(new BufferedOutputStream(next.getOutputStream()));
        this.in = new DataInputStream(new BufferedInputStream(previous.getInputStream()));
        this.sendChannel = "ring " + rank + ">" + nextRank;
        this.receiveChannel = "ring " + previousRank + ">" + rank;
    }

    public static void main(String[] args) throws Exception {
        int rank = Integer.parseInt(args[0]);
        int n = Integer.parseInt(args[1]);
        Path dir = Path.of(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int messages = Integer.parseInt(args[4]);
        int next = (rank + 1) % n;
        int previous = (rank + n - 1) % n;
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(loopback, 0));
            server.setSoTimeout((int) (CONNECT_TIMEOUT_NANOS / 1_000_000));
            Path tmp = dir.resolve("port-" + rank + ".tmp");
            Files.writeString(tmp, Integer.toString(server.getLocalPort()));
            Files.move(tmp, dir.resolve("port-" + rank), StandardCopyOption.ATOMIC_MOVE);
            try (Socket toNext = connect(loopback, dir.resolve("port-" + next));
                 Socket fromPrevious = server.accept()) {
                ApiRingApp ring = new ApiRingApp(toNext, fromPrevious, rank, next, previous);
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < messages; i++) {
                        ring.send();
                    }
                    for (int i = 0; i < messages; i++) {
                        ring.receive();
                    }
                    DProf.barrierEnter(round, n);
                    if (rank == 0) {
                        ring.send();     // arrived: lap 1
                        ring.receive();  // everyone has entered
                        ring.send();     // go: lap 2
                        ring.receive();  // the lap is complete
                    } else {
                        ring.receive();
                        ring.send();
                        ring.receive();
                        ring.send();
                    }
                    DProf.barrierExit(round, n);
                }
                System.out.println("ring: rank " + rank + " sent " + ring.sent + " received " + ring.received);
            }
        }
    }

    private void send() throws IOException {
        long key = sent++;
        DProf.send(sendChannel, key);
        out.writeLong(key);
        out.flush();
    }

    private void receive() throws IOException {
        long key = in.readLong();
        DProf.receive(receiveChannel, key);
        if (key != received++) {
            throw new IOException("expected message " + (received - 1) + " on " + receiveChannel + ", got " + key);
        }
    }

    /** Connects to the port another rank published in {@code file}, waiting for the file to appear. */
    private static Socket connect(InetAddress host, Path file) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no " + file + " within the timeout");
            }
            Thread.sleep(20);
        }
        return new Socket(host, Integer.parseInt(Files.readString(file).trim()));
    }
}
