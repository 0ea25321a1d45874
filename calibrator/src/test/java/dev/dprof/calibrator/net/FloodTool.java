package dev.dprof.calibrator.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A hostile flood for measuring the calibration base (BENCHMARKS.md, "Robustness"):
 * {@code FloodTool PORT garbage|hello RATE SECONDS [SENDERS]} sends RATE datagrams a second in all
 * to {@code 127.0.0.1:PORT} for SECONDS seconds from SENDERS threads (default 1), each with its own
 * channel and an equal share of the rate — random bytes, or well-formed unkeyed HELLOs each from a
 * new session and domain name — and prints how many were sent. One sender reaches 20-40 k/s on a
 * loaded two-core host (a send is one system call, and Java has no {@code sendmmsg}); several
 * spread the calls over the cores. Loopback only, by construction: the address is not an argument.
 * A tool run by hand, not a test.
 */
public final class FloodTool {
    /** Distinct random datagrams each sender cycles through (a power of two). */
    private static final int GARBAGE = 4096;

    private FloodTool() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        boolean hello = args[1].equals("hello");
        int rate = Integer.parseInt(args[2]);
        double seconds = Double.parseDouble(args[3]);
        int senders = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        InetSocketAddress base = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        AtomicLong sent = new AtomicLong();
        Thread[] threads = new Thread[senders];
        for (int i = 0; i < senders; i++) {
            int id = i;
            double share = (double) rate / senders;
            threads[i] = new Thread(() -> sent.addAndGet(send(base, hello, share, start, end, id)), "flood-" + i);
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        double took = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "%d %s datagrams in %.1f s (%.0f/s) from %d senders%n", sent.get(),
                hello ? "hello" : "garbage", took, sent.get() / took, senders);
    }

    /** One sender's share: {@code rate} datagrams a second until {@code end}; returns how many it sent. */
    private static long send(InetSocketAddress base, boolean hello, double rate, long start, long end, int id) {
        PacketCodec codec = PacketCodec.open();
        Random random = new Random(19 + id);
        byte[] out = new byte[PacketCodec.MAX_BYTES];
        ByteBuffer buffer = ByteBuffer.allocateDirect(PacketCodec.MAX_BYTES);
        // random datagrams made ahead: drawing 200 random bytes per send halved the rate one sender reached
        byte[][] garbage = new byte[hello ? 0 : GARBAGE][];
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = new byte[16 + random.nextInt(200)];
            random.nextBytes(garbage[i]);
        }
        long sent = 0;
        try (DatagramChannel channel = DatagramChannel.open()) {
            channel.connect(base);
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
                    n = codec.encode(new Packet.Hello(random.nextLong(), sent,
                            "flood-" + Long.toHexString(random.nextLong())), out);
                } else {
                    byte[] junk = garbage[(int) (sent & (GARBAGE - 1))];
                    n = junk.length;
                    System.arraycopy(junk, 0, out, 0, n);
                }
                buffer.clear();
                buffer.put(out, 0, n).flip();
                try {
                    channel.write(buffer);
                    sent++;
                } catch (PortUnreachableException e) {
                    // an ICMP error of an earlier datagram (the base not up yet): not sent, the flood goes on
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sent;
    }
}
