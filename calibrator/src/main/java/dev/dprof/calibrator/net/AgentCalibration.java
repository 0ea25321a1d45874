package dev.dprof.calibrator.net;

import dev.dprof.clock.DomainClock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Calibration inside a profiled JVM, for the YAML's {@code calibration: {base: HOST:PORT}}: a
 * {@link CalibrationNode} on the daemon thread {@code dprof-calibration}, reading the probes' own
 * clock domain, with a final epoch from a shutdown hook. It must never break the host (DESIGN.md
 * rule 2): everything, name resolution included, happens off the caller's thread, and a failure
 * is one line. A base that does not answer yet is retried every interval, quietly after the first
 * line; one that can never work (unresolvable, same domain, unwritable directory) ends it.
 *
 * <p>So that a normal run has no tick outside its calibrated span (docs/BOUNDS.md, "Outside the
 * calibrated span"), the first exchange is a short one ({@link CalibrationNode#firstExchange})
 * that the agent's start waits for, at most {@value #PRE_MAIN_WAIT_MILLIS} ms after
 * {@link #start} ({@link #awaitFirstExchange}), and the last is the shutdown hook's final epoch.
 * A base that is slow or unreachable never holds the application back longer: its first ticks
 * are then outside the span, and counted as such by the consolidator.
 */
public final class AgentCalibration {
    /** The longest the application's start waits for the first exchange, from {@link #start}. */
    public static final long PRE_MAIN_WAIT_MILLIS = 100;

    private final NodeSettings settings;
    private final DomainClock clock;
    private final long startedAt = System.nanoTime();
    private final CountDownLatch firstExchange = new CountDownLatch(1);
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    /** What the shutdown hook waits for before the final exchange (see {@link #finalExchangeAfter}). */
    private volatile CountDownLatch lastEvents = new CountDownLatch(0);
    private boolean stopped;
    private CalibrationNode node;

    private AgentCalibration(NodeSettings settings, DomainClock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Starts calibrating against {@code base} into {@code outDir}; returns at once.
     *
     * @param key    the key shared with the base; empty only when the configuration says to run
     *               without one (the caller has said so in its line)
     * @param probes the clock the probes stamp events with; calibration reads its ordered twin
     * @param warn   receives the one line on success or failure
     * @param own    told of each thread this starts, before it starts: the agent counts them as its own,
     *               so that the calibration file's {@code force} never shows in a YAML region of the
     *               application's (its first exchange runs before the agent's start has ended)
     * @return the running calibration (its shutdown hook is already registered), or empty if the
     *         clock cannot be read in order
     */
    public static Optional<AgentCalibration> start(HostPort base, int intervalSec, Optional<SharedKey> key,
                                                   DomainClock probes, Path outDir, Consumer<String> warn,
                                                   Consumer<Thread> own) {
        Optional<DomainClock> clock = OrderedClock.twinOf(probes);
        if (clock.isEmpty()) {
            warn.accept("calibration off: this CPU has no rdtscp, so no read of the TSC can be ordered with a "
                    + "packet and no zero would be sound; the application runs on");
            return Optional.empty();
        }
        NodeSettings settings = new NodeSettings(base, outDir, TimeUnit.SECONDS.toMillis(intervalSec),
                NodeSettings.DEFAULT_BURST, NodeSettings.DEFAULT_PACING_MICROS, NodeSettings.DEFAULT_TIMEOUT_MILLIS,
                key, line -> { }, warn);
        AgentCalibration calibration = new AgentCalibration(settings, clock.get());
        Thread t = new Thread(calibration::run, "dprof-calibration");
        t.setDaemon(true);
        own.accept(t);
        t.start();
        Thread hook = new Thread(calibration::stopAfterLastEvents, "dprof-calibration-shutdown");
        own.accept(hook);
        Runtime.getRuntime().addShutdownHook(hook);
        return Optional.of(calibration);
    }

    /**
     * Waits until the first exchange has ended (a zero, a miss, or a failure), but never past
     * {@value #PRE_MAIN_WAIT_MILLIS} ms after {@link #start}: the agent calls it just before the
     * application's {@code main}.
     *
     * @return whether the first exchange ended in time
     */
    public boolean awaitFirstExchange() {
        long left = startedAt + TimeUnit.MILLISECONDS.toNanos(PRE_MAIN_WAIT_MILLIS) - System.nanoTime();
        try {
            return firstExchange.await(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void run() {
        try {
            calibrate();
        } finally {
            firstExchange.countDown();
        }
    }

    private void calibrate() {
        boolean told = false;
        while (true) {
            CalibrationNode joined;
            try {
                joined = CalibrationNode.join(settings, clock);
            } catch (JoinException e) {
                if (!e.retryable()) {
                    settings.warn().accept(e.getMessage() + "; calibration off, the application runs on");
                    return;
                }
                if (!told) {
                    settings.warn().accept(e.getMessage() + "; retrying every "
                            + TimeUnit.MILLISECONDS.toSeconds(settings.intervalMillis()) + " s");
                    told = true;
                }
                if (awaitStop(settings.intervalMillis())) {
                    return;
                }
                continue;
            } catch (RuntimeException e) {
                settings.warn().accept("calibration off (" + e + "); the application runs on");
                return;
            }
            boolean stopping;
            synchronized (this) {
                node = joined;
                stopping = stopped;
            }
            if (stopping) {
                joined.stop();
                return;
            }
            try {
                // Until the start's deadline, however late the join came, and at least a few
                // round trips' time, so that a zero comes as early as the base allows.
                long deadline = Math.max(startedAt + TimeUnit.MILLISECONDS.toNanos(PRE_MAIN_WAIT_MILLIS),
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FIRST_EXCHANGE_MIN_MILLIS));
                joined.firstExchange(deadline);
            } catch (IOException | RuntimeException e) {
                settings.warn().accept("calibration off (" + e + "); the application runs on");
                joined.stop();
                return;
            }
            firstExchange.countDown();
            settings.warn().accept("calibrating against " + settings.parent() + " (domain " + joined.parentDomainId()
                    + ") into " + joined.file());
            joined.run();
            return;
        }
    }

    /** The shortest first exchange, when the join itself took the start's whole wait. */
    private static final long FIRST_EXCHANGE_MIN_MILLIS = 20;

    private boolean awaitStop(long millis) {
        try {
            return stopSignal.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /**
     * Makes the shutdown hook's final exchange wait until {@code signal} is counted down (the
     * agent does it once its last events are drained), at most {@value #LAST_EVENTS_WAIT_MILLIS}
     * ms: shutdown hooks run concurrently, and a final zero taken while other hooks still record
     * events would leave those outside the span.
     */
    public void finalExchangeAfter(CountDownLatch signal) {
        lastEvents = signal;
    }

    /** The longest the final exchange waits for {@link #finalExchangeAfter}'s signal. */
    static final long LAST_EVENTS_WAIT_MILLIS = 5_000;

    private void stopAfterLastEvents() {
        try {
            lastEvents.await(LAST_EVENTS_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stop();
    }

    /** Ends calibration with a final epoch and the file's {@code end} line; what the shutdown hook calls. Idempotent. */
    public void stop() {
        CalibrationNode n;
        synchronized (this) {
            stopped = true;
            n = node;
        }
        stopSignal.countDown();
        if (n != null) {
            n.stop();
        }
    }
}
