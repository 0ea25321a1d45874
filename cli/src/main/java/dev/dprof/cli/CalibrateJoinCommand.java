package dev.dprof.cli;

import dev.dprof.calibrator.net.JoinException;
import dev.dprof.calibrator.net.CalibrationNode;
import dev.dprof.calibrator.net.CalibrationServer;
import dev.dprof.calibrator.net.HostPort;
import dev.dprof.calibrator.net.NodeSettings;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.clock.DomainClock;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dprof calibrate join}: a node of the calibration tree (DProf §4.1). Measures zeros
 * against its parent at start, every interval and at shutdown, each epoch's tightest appended to
 * its {@code .cal} file at once; with {@code --port} it also serves its own children, so C can
 * join B which joined A.
 */
@Command(name = "join", mixinStandardHelpOptions = true,
        description = "Calibrate this machine's clock against a parent (the reference or another node) until "
                + "SIGTERM/SIGINT or --seconds; write this domain's .cal file.")
final class CalibrateJoinCommand implements Callable<Integer> {
    @Option(names = "--base", required = true, paramLabel = "HOST:PORT", description = "the parent: a 'serve' or a 'join --port'")
    String base;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "folder for the .cal file")
    Path out;

    @Option(names = "--port", paramLabel = "P", description = "also serve children on this UDP port (0: any free port, printed)")
    Integer port;

    @Option(names = "--interval-sec", paramLabel = "N", defaultValue = "" + NodeSettings.DEFAULT_INTERVAL_SEC,
            description = "seconds between epochs (default ${DEFAULT-VALUE})")
    int intervalSec;

    @Option(names = "--seconds", paramLabel = "S", description = "stop after S seconds (final epoch, 'end' line, exit 0)")
    Integer seconds;

    @Option(names = "--burst", paramLabel = "N", defaultValue = "" + NodeSettings.DEFAULT_BURST,
            description = "round trips per epoch (default ${DEFAULT-VALUE})")
    int burst;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "" + NodeSettings.DEFAULT_TIMEOUT_MILLIS,
            description = "wait per round trip before it counts as lost (default ${DEFAULT-VALUE})")
    long timeoutMs;

    @Option(names = "--key-file", paramLabel = "F", description = "shared key (>= 16 bytes), the parent's and the "
            + "children's (default: the file $" + DprofSettings.CALIBRATION_KEY_FILE_ENV + " names)")
    Path keyFile;

    @Option(names = "--insecure", description = "run without a key: anyone on the path could forge zeros")
    boolean insecure;

    @Option(names = "--verbose", description = "log one line per epoch to stderr")
    boolean verbose;

    /** For {@code dprof testbed calibrate}: ticks of this domain with their real moments ({@link TestbedTicks}). */
    @Option(names = "--test-ticks", hidden = true, paramLabel = "FILE")
    Path testTicks;

    @Option(names = "--test-tick-every-us", hidden = true, paramLabel = "US", defaultValue = "500")
    long testTickEveryUs;

    /** For {@code dprof testbed calibrate}: every counter, written at exit ({@link TestbedCounters}). */
    @Option(names = "--counters", hidden = true, paramLabel = "FILE")
    Path counters;

    @Override
    public Integer call() throws CliException {
        HostPort parent;
        try {
            parent = HostPort.parse(base);
        } catch (IllegalArgumentException e) {
            throw new CliException("--base: " + e.getMessage());
        }
        if (intervalSec <= 0 || (seconds != null && seconds <= 0)) {
            throw new CliException("--interval-sec and --seconds must be > 0");
        }
        if (port != null && (port < 0 || port > 65535)) {
            throw new CliException("--port " + port + " is out of range (expected 0..65535)");
        }
        Optional<SharedKey> key = CalibrateCommand.key(keyFile, insecure);
        DomainClock clock = CalibrateCommand.clock();
        Optional<TestbedTicks> ticks = testTicks(clock);
        Consumer<String> epochLog = verbose ? CalibrateCommand::err : line -> { };
        NodeSettings settings;
        try {
            settings = new NodeSettings(parent, out, TimeUnit.SECONDS.toMillis(intervalSec), burst,
                    NodeSettings.DEFAULT_PACING_MICROS, timeoutMs, key,
                    ticks.isEmpty() ? epochLog : epochLog.andThen(line -> ticks.get().begin()), CalibrateCommand::err);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        Optional<CalibrationServer> server = serve(clock, key);
        CalibrationNode node;
        try {
            node = CalibrationNode.join(settings, clock);
        } catch (JoinException e) {
            server.ifPresent(CalibrationServer::close);
            ticks.ifPresent(CalibrateJoinCommand::closeTicks);
            throw new CliException(e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Ticks end before the final epoch, so every tick lies between two zeros.
            ticks.ifPresent(CalibrateJoinCommand::closeTicks);
            node.stop();
            server.ifPresent(CalibrationServer::close);
            if (verbose) {
                CalibrateCommand.err("calibration ended: " + node.counts());
            }
            if (counters != null) {
                TestbedCounters.write(counters, CalibrationNode.Count.class, node::count);
            }
        }, "dprof-calibration-shutdown"));
        CalibrateCommand.err("joined " + parent + " (domain " + node.parentDomainId() + "); writing " + node.file()
                + server.map(s -> "; serving children on UDP port " + s.port()).orElse(""));
        node.start();
        long millis = seconds == null ? Long.MAX_VALUE : TimeUnit.SECONDS.toMillis(seconds);
        if (!node.awaitEnd(millis)) {
            ticks.ifPresent(CalibrateJoinCommand::closeTicks);
            node.stop();
        }
        server.ifPresent(CalibrationServer::close);
        if (node.failure().isPresent()) {
            throw new CliException(node.failure().get());
        }
        return 0;
    }

    private Optional<TestbedTicks> testTicks(DomainClock clock) throws CliException {
        if (testTicks == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(TestbedTicks.start(clock, testTicks, testTickEveryUs));
        } catch (IOException | IllegalArgumentException e) {
            throw new CliException("--test-ticks " + testTicks + ": " + e.getMessage());
        }
    }

    private static void closeTicks(TestbedTicks ticks) {
        try {
            ticks.close();
        } catch (IOException e) {
            CalibrateCommand.err("cannot write the test ticks (" + e.getMessage() + ")");
        }
    }

    private Optional<CalibrationServer> serve(DomainClock clock, Optional<SharedKey> key) throws CliException {
        if (port == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(CalibrationServer.start(port, clock, key, verbose ? CalibrateCommand::err : line -> { },
                    CalibrateCommand::err));
        } catch (IOException e) {
            throw new CliException("cannot serve on UDP port " + port + " (" + e.getMessage() + ")");
        }
    }
}
