package dev.dprof.it.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The program {@code RecordedRunTest} records for {@code dprof suggest}: a compute, a queue's taker and a socket's
 * reader, each on a thread of its own, each sure to be recorded whatever the load of the host.
 */
public final class SuggestWorkload {
    private SuggestWorkload() {
    }

    public static final long CPU_MILLIS = 300;
    static volatile long sink;

    /**
     * {@code SuggestWorkload}: prints {@code ready}, runs {@link #runAll} over and over until a line {@code stop} on
     * stdin, then once more — a whole round after the line, whatever round was running when it came — and prints
     * {@code done rounds=N}.
     */
    public static void main(String[] args) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
                    // wait for the test
                }
            } catch (IOException e) {
                // stdin closed: stop as well
            }
            stop.set(true);
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
        System.out.println("ready");
        System.out.flush();
        int rounds = 0;
        while (!stop.get()) {
            runAll();
            rounds++;
        }
        runAll();
        System.out.println("done rounds=" + (rounds + 1));
    }

    public static void runAll() throws Exception {
        Thread compute = new Thread(() -> sink = new Crunch(7).result, "compute");
        compute.start();
        queue();
        socket();
        compute.join();
    }

    /** Runs the compute in a constructor, so that {@code <init>} is on the stack of the samples. */
    static final class Crunch {
        final long result;

        Crunch(int seed) {
            long r = seed;
            ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
            long end = cpu.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(CPU_MILLIS);
            while (cpu.getCurrentThreadCpuTime() < end) {
                r = spin(r);
            }
            result = r;
        }
    }

    /** Tens of milliseconds a call: called a few times, so the JIT compiles its loop and never inlines it. */
    static long spin(long x) {
        for (int i = 0; i < 20_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    static void queue() throws Exception {
        BlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        int[] taken = new int[1];
        Thread taker = new Thread(() -> taken[0] = consume(q), "taker");
        taker.start();
        while (taker.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        Thread.sleep(5);
        q.put(42);
        taker.join();
        if (taken[0] != 42) {
            throw new IllegalStateException("took " + taken[0]);
        }
    }

    static int consume(BlockingQueue<Integer> q) {
        try {
            return q.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static void socket() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread reply = new Thread(() -> {
                try (Socket s = server.accept()) {
                    s.getInputStream().read();
                    Thread.sleep(100);
                    s.getOutputStream().write(7);
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, "server");
            reply.start();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                OutputStream out = client.getOutputStream();
                out.write(1);
                int answer = readReply(client.getInputStream());
                if (answer != 7) {
                    throw new IllegalStateException("read " + answer);
                }
            }
            reply.join();
        }
    }

    static int readReply(InputStream in) throws IOException {
        return in.read();
    }
}
