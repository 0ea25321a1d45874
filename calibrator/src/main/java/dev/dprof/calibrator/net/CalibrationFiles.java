package dev.dprof.calibrator.net;

import dev.dprof.clock.DomainClock;
import dev.dprof.clock.HostName;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.calibration.CalibrationFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Opens the {@link CalibrationFile} of one calibrating process with everything its header needs
 * taken from the process's {@link DomainClock}, so the reference and the nodes describe their
 * domains the same way.
 */
public final class CalibrationFiles {
    /** Long enough for a nominal rate within a fraction of a percent; it is only ever displayed. */
    private static final long RATE_WINDOW_MILLIS = 10;

    private CalibrationFiles() {
    }

    /**
     * Creates {@code dir/<domain>-<pid>.cal} for {@code clock}'s domain.
     *
     * @param parentDomainId the domain the zeros will be measured against; empty for the reference
     * @param tickHz         the domain's nominal rate, from {@link #nominalTickHz}
     */
    public static CalibrationFile create(Path dir, DomainClock clock, Optional<String> parentDomainId, double tickHz)
            throws IOException {
        return CalibrationFile.create(dir, clock.domainId(), parentDomainId, HostName.get(), clock.source().name(),
                tickHz, clock.simulated().map(SimulatedClock::spec));
    }

    /** The domain's tick rate against {@link System#nanoTime()}: for showing ticks as µs, never part of a bound. */
    public static double nominalTickHz(DomainClock clock) {
        long n0 = System.nanoTime();
        long k0 = clock.now();
        try {
            Thread.sleep(RATE_WINDOW_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long k1 = clock.now();
        long n1 = System.nanoTime();
        return (k1 - k0) * 1e9 / Math.max(1, n1 - n0);
    }
}
