package dev.dprof.calibrator.net;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * A hostile flood for measuring the calibration base (BENCHMARKS.md, "Robustness"):
 * {@code FloodTool PORT garbage|hello RATE SECONDS} sends RATE datagrams a second to
 * {@code 127.0.0.1:PORT} for SECONDS seconds — random bytes, or well-formed unkeyed HELLOs each
 * from a new session and domain name — and prints how many it sent. Loopback only, by
 * construction: the address is not an argument. A tool run by hand, not a test.
 */
public final class FloodTool {
    private FloodTool() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        boolean hello = args[1].equals("hello");
        int rate = Integer.parseInt(args[2]);
        double seconds = Double.parseDouble(args[3]);
        InetSocketAddress base = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        PacketCodec codec = PacketCodec.open();
        Random random = new Random(19);
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        long sent = 0;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        try (DatagramSocket socket = new DatagramSocket()) {
            DatagramPacket packet = new DatagramPacket(out, 0, base);
            while (true) {
                long now = System.nanoTime();
                if (now >= end) {
                    break;
                }
                long due = (long) ((now - start) / 1e9 * rate);
                if (sent >= due) {
                    LockSupport.parkNanos(50_000);
                    continue;
                }
                int n;
                if (hello) {
                    n = codec.encode(new Packet.Hello(random.nextLong(), sent, "flood-" + Long.toHexString(random.nextLong())),
                            out);
                } else {
                    n = 16 + random.nextInt(200);
                    random.nextBytes(out);
                }
                packet.setData(out, 0, n);
                socket.send(packet);
                sent++;
            }
        }
        double took = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "%d %s datagrams in %.1f s (%.0f/s)%n", sent, hello ? "hello" : "garbage",
                took, sent / took);
    }
}
