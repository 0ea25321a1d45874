package dev.dprof.it;

import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.calibrator.net.CalibrationFiles;
import dev.dprof.calibrator.net.CalibrationServer;
import dev.dprof.calibrator.net.OrderedClock;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.calibration.CalibrationFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Several simulated machines on this one: a FreeZer calibration base in the test's JVM on a
 * simulated reference clock, and for each forked JVM a simulated clock of its own
 * ({@code -Ddprof.clock.sim}) that the agent calibrates against the base (DESIGN.md, "Simulated
 * clocks and the test bed"). All of them transform this machine's one TSC, so each event's truth is
 * known and the consolidated profile has a truth column to check every bound against.
 */
final class SimulatedMachines implements AutoCloseable {
    private final Path calibration;
    private final Path key;
    private final long tscHz;
    private final SplittableRandom random;
    private final CalibrationServer base;
    private final CalibrationFile referenceFile;

    private SimulatedMachines(Path dir, long seed) throws IOException {
        calibration = dir.resolve("calibration");
        random = new SplittableRandom(seed);
        tscHz = Math.round(CalibrationFiles.nominalTickHz(OrderedClock.of(Optional.empty())));
        DomainClock reference = OrderedClock.of(Optional.of(SimulatedClock.parse("rate=1.0,offset="
                + random.nextLong(1L << 40) + ",tsc-hz=" + tscHz)));
        key = dir.resolve(SharedKey.RUN_KEY_FILE);
        Files.deleteIfExists(key);
        base = CalibrationServer.start(0, reference, Optional.of(SharedKey.generate(key)), line -> { });
        referenceFile = CalibrationFiles.create(calibration, reference, Optional.empty(),
                CalibrationFiles.nominalTickHz(reference));
    }

    /** Starts the base; {@code seed} picks the clocks. */
    static SimulatedMachines start(Path dir, long seed) throws IOException {
        return new SimulatedMachines(dir, seed);
    }

    /** The agent's YAML: calibration against the base, and {@code regions} (YAML lines, may be empty). */
    String yaml(String regions) {
        return """
                version: 1
                calibration:
                  base: 127.0.0.1:%d
                  intervalSec: 1
                  keyFile: "%s"
                %s""".formatted(base.port(), key.toAbsolutePath(), regions);
    }

    /** A machine's clock: another rate and offset than the reference's and every other machine's. */
    String nextClock() {
        return String.format(Locale.ROOT, "rate=%.5f,offset=%d,tsc-hz=%d", 0.8 + 0.6 * random.nextDouble(),
                random.nextLong(1L << 42) - (1L << 41), tscHz);
    }

    /** Consolidates {@code runs} with FreeZer's sound conversion, once the JVMs ended and the base is closed. */
    ProfileInfo consolidate(Path runs, Path profile) throws Exception {
        return Consolidator.run(new Consolidator.Options(List.of(runs), List.of(calibration), profile,
                Consolidator.Sync.FREEZER, DriftModels.parse("bounded:1"), Optional.empty()), n -> { });
    }

    @Override
    public void close() throws IOException {
        base.close();
        referenceFile.end();
        referenceFile.close();
    }
}
