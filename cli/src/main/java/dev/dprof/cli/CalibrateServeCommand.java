package dev.dprof.cli;

import dev.dprof.calibrator.net.CalibrationFiles;
import dev.dprof.calibrator.net.CalibrationServer;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.clock.DomainClock;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dprof calibrate serve}: the reference of the calibration tree. Answers every node's
 * round trips with this machine's clock and writes the reference's {@code .cal} file (no parent,
 * no zeros, an {@code end} line on SIGTERM/SIGINT), so the consolidator knows which domain all
 * bounds are expressed in.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve as the calibration reference until SIGTERM/SIGINT; write this domain's .cal file.")
final class CalibrateServeCommand implements Callable<Integer> {
    @Option(names = "--port", required = true, paramLabel = "P", description = "UDP port to serve on (0: any free port, printed)")
    int port;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "folder for the .cal file")
    Path out;

    @Option(names = "--key-file", paramLabel = "F", description = "shared key (>= 16 bytes): only packets tagged with it "
            + "count (default: the file $" + DprofSettings.CALIBRATION_KEY_FILE_ENV + " names)")
    Path keyFile;

    @Option(names = "--insecure", description = "run without a key: anyone who can reach the port could forge zeros")
    boolean insecure;

    @Option(names = "--verbose", description = "log every node that says hello, and the counters at the end")
    boolean verbose;

    /** For {@code dprof testbed calibrate}: every counter, written at exit ({@link TestbedCounters}). */
    @Option(names = "--counters", hidden = true, paramLabel = "FILE")
    Path counters;

    @Override
    public Integer call() throws CliException, InterruptedException {
        if (port < 0 || port > 65535) {
            throw new CliException("--port " + port + " is out of range (expected 0..65535)");
        }
        Optional<SharedKey> key = CalibrateCommand.key(keyFile, insecure);
        DomainClock clock = CalibrateCommand.clock();
        CalibrationServer server;
        try {
            server = CalibrationServer.start(port, clock, key, verbose ? CalibrateCommand::err : line -> { },
                    CalibrateCommand::err);
        } catch (IOException e) {
            throw new CliException("cannot serve on UDP port " + port + " (" + e.getMessage() + ")");
        }
        CalibrationFile file;
        try {
            file = CalibrationFiles.create(out, clock, Optional.empty(), CalibrationFiles.nominalTickHz(clock));
        } catch (IOException e) {
            server.close();
            throw new CliException("cannot write the calibration file in " + out + " (" + e.getMessage() + ")");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            try {
                file.end();
                file.close();
            } catch (IOException e) {
                CalibrateCommand.err("cannot end " + file.path() + " (" + e.getMessage() + ")");
            }
            if (verbose) {
                CalibrateCommand.err("served: " + server.counts());
            }
            if (counters != null) {
                TestbedCounters.write(counters, CalibrationServer.Count.class, server::count);
            }
        }, "dprof-calibration-shutdown"));
        CalibrateCommand.err("serving calibration on UDP port " + server.port() + " for domain " + clock.domainId()
                + "; writing " + file.path());
        CalibrateCommand.blockUntilShutdown();
        return 0;
    }
}
