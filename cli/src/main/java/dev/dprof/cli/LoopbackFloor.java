package dev.dprof.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The network's minimum transmission time between two processes on this host, which the demo's
 * workers talk over: the DProf paper's yardstick for fast sends (§6, "a send which is closer to
 * its corresponding receive than the minimum network transmission time").
 *
 * <p>Both ends run in this JVM, so one clock ({@link System#nanoTime}) stamps the write and the
 * read that returns its byte, and their difference is a true one-way time, not half a round trip.
 * A one-byte ping-pong over loopback TCP with {@code TCP_NODELAY}, stamped where the agent stamps
 * an application's socket writes and reads (before the write, after the read); the minimum over
 * both directions after a warm-up.
 */
final class LoopbackFloor {
    private static final int WARM_UP = 500;

    private LoopbackFloor() {
    }

    /** The minimum one-way time of {@code rounds} ping-pongs, in nanoseconds. */
    static long minimumOneWayNanos(int rounds) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        int total = WARM_UP + rounds;
        AtomicLongArray arrived = new AtomicLongArray(total);
        AtomicLongArray answered = new AtomicLongArray(total);
        try (ServerSocket server = new ServerSocket(0, 1, loopback);
             Socket client = new Socket(loopback, server.getLocalPort());
             Socket peer = server.accept()) {
            client.setTcpNoDelay(true);
            peer.setTcpNoDelay(true);
            Thread echo = new Thread(() -> {
                try {
                    InputStream in = peer.getInputStream();
                    OutputStream out = peer.getOutputStream();
                    for (int i = 0; i < total; i++) {
                        if (in.read() < 0) {
                            return;
                        }
                        arrived.set(i, System.nanoTime());
                        answered.set(i, System.nanoTime());
                        out.write(1);
                    }
                } catch (IOException e) {
                    // the main thread sees the closed socket and reports it
                }
            }, "dprof-loopback-echo");
            echo.setDaemon(true);
            echo.start();
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            long best = Long.MAX_VALUE;
            for (int i = 0; i < total; i++) {
                long sent = System.nanoTime();
                out.write(1);
                if (in.read() < 0) {
                    throw new IOException("the loopback echo closed after " + i + " rounds");
                }
                long back = System.nanoTime();
                if (i >= WARM_UP) {
                    best = Math.min(best, Math.min(arrived.get(i) - sent, back - answered.get(i)));
                }
            }
            return best;
        }
    }
}
