package dev.dprof.calibrator.net;

import dev.dprof.calibrator.estimate.DomainConversion;
import dev.dprof.clock.DomainClock;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The node side of FreeZer's zero estimation (DProf §3.2, Alg. 4) against one parent (§4.1: a
 * node of the calibration tree). It learns the parent's clock domain once, then measures an epoch
 * — a burst of paced round trips — at start, every interval, and once more when stopped; the
 * tightest round trip of each epoch is appended to the node's {@link CalibrationFile} at once, so
 * a killed node loses nothing it measured. An epoch without any answer is a counted miss (its
 * number is skipped in the file) and the next epoch tries again.
 */
public final class CalibrationNode implements AutoCloseable {
    /** What the node counts. */
    public enum Count {
        /** Epochs measured, misses included. */
        EPOCHS,
        /** Epochs that produced a zero. */
        ZEROS,
        /** Epochs in which no ping was answered. */
        MISSES,
        /** Datagrams sent (hellos and pings). */
        SENT,
        /** Pongs paired with their ping. */
        REPLIES,
        /** Requests whose answer did not come in time. */
        TIMEOUTS,
        /** Requests the operating system reported as unreachable (nothing listens on the parent's port). */
        UNREACHABLE,
        /** Sends or receives the operating system failed otherwise (no route, network down): lost round trips. */
        NETWORK_ERRORS,
        /** Valid packets that answer no current request: late, duplicated, or of an earlier session. */
        STALE,
        /** Pongs from a parent whose clock domain is not the one it welcomed us with. */
        FOREIGN,
        /** Datagrams rejected by the codec (garbage, truncated, forged). */
        REJECTED,
        /** Round trips in which this clock read {@code k2 < k1}; dropped (a clock that goes back proves nothing). */
        BACKWARDS,
        /**
         * Pings answered twice with different ticks (a forger racing the parent, or a duplicated
         * ping): their round trips are never an epoch's zero ({@link NodeLink}).
         */
        CONFLICTS
    }

    /** Hellos are tried every {@link #HELLO_TIMEOUT_MILLIS} for about 3 s: long enough for a lossy path. */
    private static final int HELLO_ATTEMPTS = 12;
    private static final long HELLO_TIMEOUT_MILLIS = 250;
    /** Enough round trips for the JIT to compile both ends' paths (about 0.2 s at the default pacing). */
    static final int WARM_UP_ROUND_TRIPS = 1024;
    private static final long WARM_UP_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long WARM_UP_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(800);
    /** The first and last epochs measure at least this many times the usual burst. */
    static final int EDGE_BURST_FACTOR = 4;
    /**
     * An edge epoch goes on, burst after burst, until its tightest round trip is within this factor
     * of the tightest this link has shown before (warm-up included) …
     */
    static final double EDGE_TARGET = 1.1;
    /** … or until this much time has gone: it delays the start of the run and its shutdown. */
    private static final long EDGE_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /**
     * After an epoch's last ping the node listens this long (at most its timeout) before it keeps
     * a zero: a second, different answer to one of the epoch's pings arrives within a round trip,
     * and it disqualifies that ping ({@link NodeLink}).
     */
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The same for the short exchange before the application's main ({@link #firstExchange}). */
    private static final long FIRST_SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** After this many unanswered pings in a row the parent is taken as gone for this epoch. */
    private static final int MAX_LOSSES_IN_A_ROW = 16;
    private static final long STOP_WAIT_MILLIS = 30_000;

    private final NodeSettings settings;
    private final NodeLink link;
    private final String parentDomainId;
    private final long parentFingerprint;
    private final CalibrationFile file;
    private final double tickHz;
    private final Counters<Count> counts;
    private final Counters<MalformedPacketException.Reason> rejected;
    private final Object io = new Object();
    private final Object state = new Object();
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private int nextEpoch;
    /** The narrowest round trip measured on this link so far, in node ticks; guarded by {@link #io}. */
    private long tightestWidthTicks = Long.MAX_VALUE;
    private boolean stopRequested;
    private boolean looping;
    private volatile String failure;

    private CalibrationNode(NodeSettings settings, NodeLink link, String parentDomainId,
                            CalibrationFile file, double tickHz, Counters<Count> counts,
                            Counters<MalformedPacketException.Reason> rejected) {
        this.settings = settings;
        this.link = link;
        this.parentDomainId = parentDomainId;
        this.parentFingerprint = PacketCodec.fingerprint(parentDomainId);
        this.file = file;
        this.tickHz = tickHz;
        this.counts = counts;
        this.rejected = rejected;
    }

    /**
     * Resolves the parent, learns its clock domain (a few hellos over about 3 s) and opens this
     * node's calibration file. Measures nothing yet: see {@link #run()}, {@link #start()} or
     * {@link #burst()}.
     *
     * @param clock this process's domain, read with ordered instructions ({@link OrderedClock})
     * @throws JoinException one line: unresolvable, no answer, same domain, unwritable directory
     */
    public static CalibrationNode join(NodeSettings settings, DomainClock clock) throws JoinException {
        InetSocketAddress address = settings.parent().resolve();
        Counters<Count> counts = new Counters<>(Count.class);
        Counters<MalformedPacketException.Reason> rejected = new Counters<>(MalformedPacketException.Reason.class);
        NodeLink link;
        try {
            link = new NodeLink(address, settings.key(), clock, counts, rejected);
        } catch (SocketException e) {
            throw new JoinException("cannot open a UDP socket to " + settings.parent() + " ("
                    + e.getMessage() + ")", true);
        }
        try {
            Packet.Welcome welcome = welcome(link, settings);
            if (welcome.domainId().equals(clock.domainId())) {
                throw new JoinException("calibration base " + settings.parent() + " is in this process's own "
                        + "clock domain " + clock.domainId() + ": nothing to calibrate", false);
            }
            double hz = CalibrationFiles.nominalTickHz(clock);
            CalibrationFile file;
            try {
                file = CalibrationFiles.create(settings.outDir(), clock, Optional.of(welcome.domainId()), hz);
            } catch (IOException e) {
                throw new JoinException("cannot write a calibration file in " + settings.outDir() + " ("
                        + e.getMessage() + ")", false);
            }
            return new CalibrationNode(settings, link, welcome.domainId(), file, hz, counts, rejected);
        } catch (JoinException | RuntimeException e) {
            link.close();
            throw e;
        }
    }

    private static Packet.Welcome welcome(NodeLink link, NodeSettings settings) throws JoinException {
        long timeout = TimeUnit.MILLISECONDS.toNanos(Math.max(HELLO_TIMEOUT_MILLIS, settings.timeoutMillis()));
        long started = System.nanoTime();
        try {
            for (int i = 0; i < HELLO_ATTEMPTS; i++) {
                long attemptEnd = System.nanoTime() + timeout;
                Optional<Packet.Welcome> w = link.hello(timeout);
                if (w.isPresent()) {
                    return w.get();
                }
                pause(attemptEnd - System.nanoTime());
            }
        } catch (IOException e) {
            throw new JoinException("calibration base " + settings.parent() + ": " + e.getMessage(), true);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        throw new JoinException(String.format(Locale.ROOT, "no answer from calibration base %s in %.1f s (is 'dprof "
                + "calibrate serve' running there, with the same key file?)", settings.parent(), seconds), true);
    }

    /**
     * Measures one epoch: up to {@code burstSize} paced round trips (fewer if the parent stops
     * answering), and appends the tightest to the file, forced to disk.
     */
    public Burst burst() throws IOException {
        synchronized (io) {
            Epoch epoch = begin(nextEpoch++);
            measure(epoch, settings.burstSize());
            return record(epoch, SETTLE_NANOS);
        }
    }

    /**
     * A short epoch for the start of a profiled application, before its {@code main}: round trips
     * until {@code deadline} ({@link System#nanoTime}) or one burst, whichever comes first, and
     * the tightest kept as a zero, so that the application's first ticks lie inside the span.
     * Measured before the JIT has compiled anything, so its zero is wide; the edge epochs that
     * follow in {@link #run()} give the tight ones.
     */
    public Burst firstExchange(long deadline) throws IOException {
        synchronized (io) {
            Epoch epoch = begin(nextEpoch++);
            long timeout = TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis());
            measure(epoch, settings.burstSize(), Math.min(timeout, Math.max(1, deadline - System.nanoTime())), deadline);
            return record(epoch, FIRST_SETTLE_NANOS);
        }
    }

    /**
     * The first or the last epoch of a run. The mean-frequency bound, which assumes nothing about
     * drift, is set by exactly those two zeros ((w_first + w_last)/span, DProf Alg. 3), so they get
     * more round trips: {@link #EDGE_BURST_FACTOR} bursts, and more until one round trip comes within
     * {@link #EDGE_TARGET} of the link's best so far — all but the first burst within a budget: at the
     * start the other JVMs of a machine are still compiling, at the end they are all shutting
     * down, and a fixed burst then rarely catches a quiet moment.
     */
    private Burst edgeBurst() throws IOException {
        synchronized (io) {
            Epoch epoch = begin(nextEpoch++);
            long deadline = System.nanoTime() + EDGE_BUDGET_NANOS;
            long target = tightestWidthTicks == Long.MAX_VALUE ? 0 : (long) (tightestWidthTicks * EDGE_TARGET);
            long timeout = TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis());
            // One ordinary burst whatever it takes, so that a slow or lossy path still gets its zero;
            // the rest of the edge only within the budget.
            measure(epoch, settings.burstSize());
            measure(epoch, (EDGE_BURST_FACTOR - 1) * settings.burstSize(), timeout, deadline);
            while (System.nanoTime() < deadline && epoch.tightestWidth() > target) {
                measure(epoch, settings.burstSize(), timeout, deadline);
            }
            return record(epoch, SETTLE_NANOS);
        }
    }

    /** An epoch being measured: its round trips with their pings' sequence numbers. */
    private final class Epoch {
        final int number;
        int sent;
        final List<NodeLink.Trip> trips = new ArrayList<>();

        Epoch(int number) {
            this.number = number;
        }

        /** The narrowest round trip not known to be conflicted yet, or {@code Long.MAX_VALUE}. */
        long tightestWidth() {
            return trips.stream().filter(t -> !link.conflicted(t.seq())).mapToLong(t -> t.zero().widthTicks())
                    .min().orElse(Long.MAX_VALUE);
        }
    }

    private Epoch begin(int number) {
        link.beginEpoch();
        return new Epoch(number);
    }

    /**
     * Listens for late second answers for {@code settleNanos} (at most the timeout), leaves out
     * every round trip whose ping got one, and appends the tightest of the rest to the file.
     */
    private Burst record(Epoch epoch, long settleNanos) throws IOException {
        link.settle(Math.min(settleNanos, TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis())));
        List<Zero> kept = new ArrayList<>();
        for (NodeLink.Trip t : epoch.trips) {
            if (!link.conflicted(t.seq())) {
                kept.add(t.zero());
                tightestWidthTicks = Math.min(tightestWidthTicks, t.zero().widthTicks());
            }
        }
        Burst burst = new Burst(epoch.number, epoch.sent, kept, epoch.trips.size() - kept.size());
        counts.add(Count.EPOCHS);
        Optional<Zero> zero = burst.tightest();
        if (zero.isPresent()) {
            file.zero(zero.get());
            counts.add(Count.ZEROS);
        } else {
            counts.add(Count.MISSES);
        }
        settings.epochLog().accept(describe(burst));
        return burst;
    }

    private void measure(Epoch epoch, int roundTrips) throws IOException {
        measure(epoch, roundTrips, TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis()), Long.MAX_VALUE);
    }

    /** Up to {@code roundTrips} more paced round trips of the epoch, until {@code deadline} (System.nanoTime). */
    private void measure(Epoch epoch, int roundTrips, long timeout, long deadline) throws IOException {
        int sent = 0;
        int lossesInARow = 0;
        while (sent < roundTrips && lossesInARow < MAX_LOSSES_IN_A_ROW && System.nanoTime() < deadline) {
            if (epoch.sent > 0) {
                spin(TimeUnit.MICROSECONDS.toNanos(settings.pacingMicros()));
            }
            Optional<NodeLink.Trip> trip = link.roundTrip(epoch.number, parentFingerprint, timeout);
            sent++;
            epoch.sent++;
            trip.ifPresent(epoch.trips::add);
            lossesInARow = trip.isPresent() ? 0 : lossesInARow + 1;
        }
    }

    /**
     * Round trips whose zeros are not kept: the code paths of a round trip are interpreted at
     * first, and a zero measured then is ten times wider than one measured warm.
     */
    private void warmUp() throws IOException {
        synchronized (io) {
            // Answers do not matter here, so a lost ping is not waited for long, and a lossy path
            // cannot stretch the warm-up.
            long timeout = Math.min(TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis()), WARM_UP_TIMEOUT_NANOS);
            Epoch warm = begin(-1);
            measure(warm, Math.max(WARM_UP_ROUND_TRIPS, settings.burstSize()), timeout,
                    System.nanoTime() + WARM_UP_BUDGET_NANOS);
            for (NodeLink.Trip t : warm.trips) {
                tightestWidthTicks = Math.min(tightestWidthTicks, t.zero().widthTicks());
            }
        }
    }

    /**
     * Measures epochs in the calling thread — one now, then one every interval — until
     * {@link #stop()}, then a final one and the file's {@code end} line. Returns at once if
     * {@link #stop()} came first.
     */
    public void run() {
        synchronized (state) {
            if (stopRequested) {
                return;
            }
            looping = true;
        }
        long interval = TimeUnit.MILLISECONDS.toNanos(settings.intervalMillis());
        long next = System.nanoTime();
        try {
            warmUp();
            // The mean-frequency bound takes the narrowest pair among the first and the last few zeros:
            // each of those first epochs gets an edge epoch's effort, so that one of them is measured
            // after the start-up of this machine's other processes has calmed down.
            int epochs = 0;
            while (!stopSignal.await(Math.max(0, next - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                if (epochs++ < DomainConversion.EDGE_CANDIDATES) {
                    edgeBurst();
                } else {
                    burst();
                }
                next = Math.max(next + randomized(interval), System.nanoTime());
            }
            finish();
        } catch (IOException | RuntimeException e) {
            fail(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(e);
        } finally {
            release();
            done.countDown();
        }
    }

    /**
     * The gap before the next epoch: uniform in {@code [interval/2, 3·interval/2]}, so the mean
     * interval is kept but the epochs have no fixed period. A clock wander in step with a fixed
     * schedule would look the same at every zero and hide between them; at random moments it
     * shows (docs/BOUNDS.md, "What the check can and cannot see").
     */
    static long randomized(long interval) {
        return interval / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(interval + 1);
    }

    /** Runs {@link #run()} on a daemon thread named {@code dprof-calibration}. */
    public void start() {
        Thread t = new Thread(this::run, "dprof-calibration");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Ends calibration: a final epoch, the {@code end} line, sockets and file closed. Idempotent;
     * when {@link #run()} is looping it does this and this call waits for it (up to 30 s).
     */
    public void stop() {
        boolean first;
        boolean loop;
        synchronized (state) {
            first = !stopRequested;
            stopRequested = true;
            loop = looping;
        }
        stopSignal.countDown();
        if (loop) {
            awaitEnd(STOP_WAIT_MILLIS);
        } else if (first) {
            try {
                finish();
            } catch (IOException | RuntimeException e) {
                fail(e);
            } finally {
                release();
                done.countDown();
            }
        }
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** Waits until calibration ended (stopped or failed); returns whether it did within the time. */
    public boolean awaitEnd(long millis) {
        try {
            return done.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Why calibration stopped early, if it did (one line). */
    public Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    public String parentDomainId() {
        return parentDomainId;
    }

    public Path file() {
        return file.path();
    }

    public long count(Count c) {
        return counts.get(c);
    }

    /** All non-zero counters as {@code name=value}, for a log line. */
    public String counts() {
        return counts + " (rejected: " + rejected + ")";
    }

    private void finish() throws IOException {
        synchronized (io) {
            edgeBurst();
            file.end();
        }
    }

    private void release() {
        synchronized (io) {
            link.close();
            try {
                file.close();
            } catch (IOException e) {
                fail(e);
            }
        }
    }

    private void fail(Exception e) {
        if (failure == null) {
            failure = "calibration against " + settings.parent() + " stopped: " + e + " (file " + file.path() + ")";
            settings.warn().accept(failure);
        }
    }

    private String describe(Burst b) {
        Optional<Zero> z = b.tightest();
        if (z.isEmpty()) {
            return String.format(Locale.ROOT, "epoch %d: miss, 0/%d pings answered%s (%s)", b.epoch(), b.sent(),
                    b.conflicted() == 0 ? "" : " without a conflict (" + b.conflicted()
                            + " answered twice, differently: a forger on the path, or duplicated pings)", counts());
        }
        return String.format(Locale.ROOT, "epoch %d: zero width %d ticks (%.1f µs), median %.1f µs, %d/%d answered%s",
                b.epoch(), z.get().widthTicks(), micros(z.get().widthTicks()), micros(b.medianWidthTicks()),
                b.roundTrips().size(), b.sent(), b.conflicted() == 0 ? ""
                        : ", " + b.conflicted() + " left out (answered twice, differently)");
    }

    private double micros(long ticks) {
        return ticks * 1e6 / tickHz;
    }

    /**
     * Busy-waits {@code nanos} between the round trips of an epoch: parking would let this core
     * idle and the next round trip pay for waking it, which widens the zero. An epoch spins for
     * about {@code burst × pacing}, a few ms every interval.
     */
    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /** Waits at least {@code nanos}: parking may wake early, so it loops. */
    private static void pause(long nanos) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
