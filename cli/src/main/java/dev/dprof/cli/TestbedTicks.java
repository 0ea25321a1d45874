package dev.dprof.cli;

import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Test ticks whose truth is known, for {@code dprof testbed calibrate}: a {@code calibrate join}
 * of a simulated machine periodically reads its raw counter once and records the pair
 * ({@code sim(t)}, {@code t}) — the tick an agent on that machine would have stamped, and the real
 * moment it was read. The test bed converts the first with the calibration and checks that the
 * interval contains the reference's simulated reading of the second.
 *
 * <p>Both numbers come from the same raw read, so the pair is exact; the ticks are read with the
 * join's own (ordered) clock, so they are in exactly the domain the join calibrates. They start
 * after the first epoch, so every tick lies between zeros: ticks before the first zero would get
 * sound but extrapolated bounds, which measure extrapolation rather than calibration.
 *
 * <p>File: {@code writeUTF(MAGIC)}, {@code writeUTF(domainId)}, then big-endian {@code (sim, real)}
 * long pairs, buffered and flushed by {@link #close()}; a torn last pair (a killed writer) is ignored.
 */
final class TestbedTicks implements AutoCloseable {
    static final String MAGIC = "dprof-testbed-ticks 1";

    private final DomainClock clock;
    private final DataOutputStream out;
    private final long everyNanos;
    private final CountDownLatch begin = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stopping;
    private boolean closed;

    private TestbedTicks(DomainClock clock, DataOutputStream out, long everyNanos) {
        this.clock = clock;
        this.out = out;
        this.everyNanos = everyNanos;
        this.thread = new Thread(this::emit, "dprof-testbed-ticks");
        this.thread.setDaemon(true);
    }

    /**
     * Creates the file and a daemon thread that emits one tick every {@code everyMicros} once
     * {@link #begin()} was called.
     */
    static TestbedTicks start(DomainClock clock, Path file, long everyMicros) throws IOException {
        if (everyMicros <= 0) {
            throw new IllegalArgumentException("the test-tick period must be > 0 µs, got " + everyMicros);
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
        out.writeUTF(MAGIC);
        out.writeUTF(clock.domainId());
        TestbedTicks ticks = new TestbedTicks(clock, out, TimeUnit.MICROSECONDS.toNanos(everyMicros));
        ticks.thread.start();
        return ticks;
    }

    /** Lets the ticks begin (called when the first epoch is measured). */
    void begin() {
        begin.countDown();
    }

    private void emit() {
        try {
            begin.await();
            Optional<SimulatedClock> sim = clock.simulated();
            long next = System.nanoTime();
            while (!stopping) {
                long real = clock.raw();
                long tick = sim.isPresent() ? sim.get().apply(real) : real;
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                    out.writeLong(tick);
                    out.writeLong(real);
                }
                next += everyNanos;
                for (long left = next - System.nanoTime(); left > 0 && !stopping; left = next - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                }
                next = Math.max(next, System.nanoTime() - everyNanos);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            CalibrateCommand.err("test ticks stopped: " + e.getMessage());
        }
    }

    /** Stops emitting and flushes the file; idempotent. */
    @Override
    public void close() throws IOException {
        stopping = true;
        begin.countDown();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (!closed) {
                closed = true;
                out.close();
            }
        }
    }

    /** The ticks of one file: its domain, and the pairs sorted by real tick. */
    record Recorded(String domainId, long[] ticks, long[] reals) {
        int size() {
            return ticks.length;
        }
    }

    /** Reads a file written by {@link #start}. */
    static Recorded read(Path file) throws IOException {
        long size = Files.size(file);
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            if (!MAGIC.equals(in.readUTF())) {
                throw new IOException(file + ": not a test-tick file");
            }
            String domain = in.readUTF();
            int pairs = (int) Math.max(0, (size - 4 - MAGIC.length() - domain.getBytes(StandardCharsets.UTF_8).length) / 16);
            long[] ticks = new long[pairs];
            long[] reals = new long[pairs];
            int n = 0;
            try {
                for (; n < pairs; n++) {
                    ticks[n] = in.readLong();
                    reals[n] = in.readLong();
                }
            } catch (EOFException torn) {
                // a writer killed mid-pair: keep the complete pairs
            }
            return sortedByReal(domain, Arrays.copyOf(ticks, n), Arrays.copyOf(reals, n));
        }
    }

    /** One thread wrote them in order, so they are sorted already; sorts pairs only if they are not. */
    private static Recorded sortedByReal(String domain, long[] ticks, long[] reals) {
        for (int i = 1; i < reals.length; i++) {
            if (reals[i] < reals[i - 1]) {
                Integer[] order = new Integer[reals.length];
                Arrays.setAll(order, k -> k);
                Arrays.sort(order, (x, y) -> Long.compare(reals[x], reals[y]));
                long[] t = new long[ticks.length];
                long[] r = new long[reals.length];
                for (int k = 0; k < order.length; k++) {
                    t[k] = ticks[order[k]];
                    r[k] = reals[order[k]];
                }
                return new Recorded(domain, t, r);
            }
        }
        return new Recorded(domain, ticks, reals);
    }
}
