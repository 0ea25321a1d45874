package dev.dprof.calibrator.net;

import dev.dprof.clock.DomainClock;
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
 */
public final class AgentCalibration {
    private final NodeSettings settings;
    private final DomainClock clock;
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private boolean stopped;
    private CalibrationNode node;

    private AgentCalibration(NodeSettings settings, DomainClock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Starts calibrating against {@code base} into {@code outDir}; returns at once.
     *
     * @param probes the clock the probes stamp events with; calibration reads its ordered twin
     * @param warn   receives the one line on success or failure
     * @return the running calibration (its shutdown hook is already registered), or empty if the
     *         clock cannot be read in order
     */
    public static Optional<AgentCalibration> start(HostPort base, int intervalSec, DomainClock probes, Path outDir, Consumer<String> warn) {
        Optional<DomainClock> clock = OrderedClock.twinOf(probes);
        if (clock.isEmpty()) {
            warn.accept("calibration off: this CPU has no rdtscp, so no read of the TSC can be ordered with a "
                    + "packet and no zero would be sound; the application runs on");
            return Optional.empty();
        }
        NodeSettings settings = new NodeSettings(base, outDir, TimeUnit.SECONDS.toMillis(intervalSec),
                NodeSettings.DEFAULT_BURST, NodeSettings.DEFAULT_PACING_MICROS, NodeSettings.DEFAULT_TIMEOUT_MILLIS,
                Optional.empty(), line -> { }, warn);
        AgentCalibration calibration = new AgentCalibration(settings, clock.get());
        Thread t = new Thread(calibration::run, "dprof-calibration");
        t.setDaemon(true);
        t.start();
        Runtime.getRuntime().addShutdownHook(new Thread(calibration::stop, "dprof-calibration-shutdown"));
        return Optional.of(calibration);
    }

    private void run() {
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
            settings.warn().accept("calibrating against " + settings.parent() + " (domain " + joined.parentDomainId()
                    + ") into " + joined.file());
            joined.run();
            return;
        }
    }

    private boolean awaitStop(long millis) {
        try {
            return stopSignal.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
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
