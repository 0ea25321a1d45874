package dev.dprof.cli;

import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.calibrator.net.OrderedClock;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/**
 * {@code dprof calibrate serve|join}: FreeZer clock calibration over UDP (DProf §3.2 and §4.1,
 * {@code docs/CALIBRATION.md}). One reference serves; every other machine joins it or a machine
 * that joined it, and each writes its own {@code .cal} file for the consolidator.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        description = "Clock calibration over UDP: 'serve' on the reference machine, 'join' on every other one.",
        subcommands = {CalibrateServeCommand.class, CalibrateJoinCommand.class})
public final class CalibrateCommand {
    /**
     * The shared key: {@code --key-file}, else the file {@code DPROF_CALIBRATION_KEY_FILE} names;
     * none only with {@code --insecure}, which is said in one line.
     */
    static Optional<SharedKey> key(Path keyFile, boolean insecure) throws CliException {
        Optional<SharedKey> key;
        try {
            key = SharedKey.choose(Optional.ofNullable(keyFile), insecure, "--key-file", "--insecure");
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        if (key.isEmpty()) {
            err(SharedKey.insecureLine("--insecure"));
        }
        return key;
    }

    /** This machine's clock domain read in order; says so in one line when it falls back to System.nanoTime. */
    static DomainClock clock() throws CliException {
        DomainClock clock;
        try {
            clock = OrderedClock.forProcess();
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        if (clock.source() == ClockSource.NANOTIME) {
            err(NativeLibrary.isLoaded() ? "the CPU has no rdtscp; calibrating the nanotime domain"
                    : NativeLibrary.message() + " (calibrating the nanotime domain)");
        }
        return clock;
    }

    static void err(String line) {
        System.err.println(line.startsWith("dprof:") ? line : "dprof: " + line);
    }

    /** Blocks the main thread; the JVM ends through its shutdown hooks (SIGTERM, SIGINT). */
    static void blockUntilShutdown() throws InterruptedException {
        new CountDownLatch(1).await();
    }
}
