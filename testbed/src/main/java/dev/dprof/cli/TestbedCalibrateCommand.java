package dev.dprof.cli;

import dev.dprof.calibrator.estimate.DriftModel;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.calibrator.net.Forger;
import dev.dprof.calibrator.net.OrderedClock;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.calibrator.net.UdpRelay;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dprof testbed calibrate}: the end-to-end proof that calibration bounds contain the truth.
 * Starts one {@code calibrate serve} and N−1 {@code calibrate join} as separate JVMs, each a
 * machine with its own simulated clock ({@link TestbedMachines}), optionally through one
 * {@link UdpRelay} per join (in this JVM) for loss, duplication, delay, jitter and asymmetry. Every
 * join records test ticks with their real moments ({@link TestbedTicks}); after the run they are
 * converted with the calibration files and checked against the reference's simulated clock
 * ({@link TestbedCheck}). Exits 1 if a single tick lies outside its bound.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        description = "Run serve + joins as simulated machines, then check every test tick's bound against the truth.")
final class TestbedCalibrateCommand implements Callable<Integer> {
    private static final Pattern SERVING = Pattern.compile("serving calibration on UDP port (\\d+)");
    private static final Pattern JOINED = Pattern.compile("joined ");
    private static final long READY_MILLIS = 30_000;
    private static final long END_MILLIS = 60_000;

    @Option(names = "--machines", required = true, paramLabel = "N", description = "machines: 1 serve + N-1 joins (N >= 2)")
    int machines;

    @Option(names = "--seconds", required = true, paramLabel = "S", description = "how long the joins calibrate")
    int seconds;

    @Option(names = "--drift-ppm", defaultValue = "0", paramLabel = "X",
            description = "amplitude of each join's frequency wander relative to the reference, ppm (default ${DEFAULT-VALUE})")
    double driftPpm;

    @Option(names = "--drift-period-s", defaultValue = "600", paramLabel = "P",
            description = "period of the wander, s (default ${DEFAULT-VALUE})")
    double driftPeriodS;

    @Option(names = "--loss", defaultValue = "0", paramLabel = "F", description = "relay drop probability per datagram, 0..1")
    double loss;

    @Option(names = "--duplicate", defaultValue = "0", paramLabel = "F", description = "relay duplication probability, 0..1")
    double duplicate;

    @Option(names = "--delay-us", defaultValue = "0", paramLabel = "D", description = "relay delay per datagram, µs")
    long delayUs;

    @Option(names = "--jitter-us", defaultValue = "0", paramLabel = "J", description = "extra relay delay, uniform in [0, J] µs")
    long jitterUs;

    @Option(names = "--asymmetric", description = "delay and jitter on the way to the reference only")
    boolean asymmetric;

    @Option(names = "--interval-sec", defaultValue = "1", paramLabel = "I",
            description = "seconds between epochs of each join (default ${DEFAULT-VALUE}: many zeros in a short run)")
    int intervalSec;

    @Option(names = "--drift-model", defaultValue = "bounded:" + DriftModel.DEFAULT_PPM_PER_SECOND, paramLabel = "MODEL",
            description = "constant | bounded:PPM_PER_S, the assumption the check converts under (default ${DEFAULT-VALUE})")
    String driftModel;

    @Option(names = "--pin", arity = "0..1", fallbackValue = "split", paramLabel = "LAYOUT",
            description = "pin every JVM to a CPU (taskset): 'split' (the default) puts the serve on CPU 0 and the "
                    + "joins on the others, 'same' puts them all on CPU 0")
    String pin;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the clocks and the relays (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--tick-every-us", defaultValue = "500", paramLabel = "US",
            description = "one test tick per join every US µs (default ${DEFAULT-VALUE})")
    long tickEveryUs;

    @Option(names = "--outside-span-s", defaultValue = "0", paramLabel = "S",
            description = "also test ticks up to S seconds before each join's first exchange and after its last "
                    + "(default ${DEFAULT-VALUE})")
    double outsideSpanS;

    @Option(names = "--insecure", description = "calibrate without a key (by default the test bed writes a run key "
            + "into the run folder and gives it to every machine)")
    boolean insecure;

    @Option(names = "--forger-shift-ticks", paramLabel = "N",
            description = "put a forger on each join's path that answers every ping first, with the reference's tick "
                    + "shifted by N (with a key its pongs are rejected; without one no ping answered twice gives a zero)")
    Long forgerShiftTicks;

    @Option(names = "--out", paramLabel = "DIR", description = "run folder: .cal files, ticks, logs (default: a new temp folder)")
    Path out;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON")
    Path json;

    private final List<TestbedProcess> processes = new ArrayList<>();
    private final List<UdpRelay> relays = new ArrayList<>();
    private final List<Forger> forgers = new ArrayList<>();
    /** The key options every machine gets: the run key's file, or {@code --insecure}. */
    private List<String> keyArgs = List.of();

    @Override
    public Integer call() throws CliException, IOException, InterruptedException {
        DriftModel drift = validate();
        Path dir = out != null ? out : Files.createTempDirectory("dprof-testbed-");
        Files.createDirectories(dir);
        keyArgs = keyArgs(dir);
        long tscHz = TestbedMachines.measureTscHz();
        List<String> specs = TestbedMachines.specs(machines, seed, tscHz, driftPpm, driftPeriodS);
        Map<String, Object> setup = setup(tscHz, dir);
        setup.put("loadAverageAtStart", TestbedMachines.loadAverage());
        setup.put("driftPhaseDegAtStart", driftPpm > 0 ? TestbedMachines.driftPhaseDeg(tscHz, driftPeriodS) : null);
        Thread cleanup = new Thread(this::killAll, "dprof-testbed-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        List<String> problems;
        try {
            problems = runMachines(dir, specs);
        } finally {
            killAll();
            relays.forEach(UdpRelay::close);
            forgers.forEach(Forger::close);
        }
        if (!forgers.isEmpty()) {
            setup.put("forgers", forgerCounts());
        }
        Runtime.getRuntime().removeShutdownHook(cleanup);
        setup.put("loadAverageAtEnd", TestbedMachines.loadAverage());
        setup.put("driftPhaseDegAtEnd", driftPpm > 0 ? TestbedMachines.driftPhaseDeg(tscHz, driftPeriodS) : null);

        TestbedCheck.Result result = TestbedCheck.ofFolder(dir, drift, outsideSpanS);
        TestbedReport.print(result, System.out);
        if (!forgers.isEmpty()) {
            System.out.println("forgers (every ping answered first, the reference's tick shifted by " + forgerShiftTicks
                    + " ticks): " + forgerCounts() + (insecure ? "; no key" : "; the joins have a key"));
        }
        System.out.println("load average at start " + setup.get("loadAverageAtStart") + ", at end "
                + setup.get("loadAverageAtEnd"));
        if (json != null) {
            Json.write(json, TestbedReport.json(result, setup, relayCounts()));
        }
        problems.forEach(CalibrateCommand::err);
        int verdict = verdict(result, dir);
        return problems.isEmpty() ? verdict : 1;
    }

    /** 0 if every bounded tick is contained ({@code missed} is 0), else 1 with one line: a single miss is a soundness bug. */
    static int verdict(TestbedCheck.Result result, Path dir) {
        if (result.missed() == 0) {
            return 0;
        }
        CalibrateCommand.err(result.missed() + " of " + result.checked()
                + " test ticks lie outside their bounds: the calibration is unsound; run folder " + dir);
        return 1;
    }

    private DriftModel validate() throws CliException {
        if (machines < 2) {
            throw new CliException("--machines must be >= 2 (one serve and at least one join), got " + machines);
        }
        if (seconds <= 0 || intervalSec <= 0 || tickEveryUs <= 0) {
            throw new CliException("--seconds, --interval-sec and --tick-every-us must be > 0");
        }
        if (!(outsideSpanS >= 0)) {
            throw new CliException("--outside-span-s must be >= 0, got " + outsideSpanS);
        }
        if (driftPpm < 0 || (driftPpm > 0 && !(driftPeriodS > 0))) {
            throw new CliException("--drift-ppm must be >= 0, and --drift-period-s > 0 with it");
        }
        if (pin != null && !pin.equals("split") && !pin.equals("same")) {
            throw new CliException("--pin must be split or same, not '" + pin + "'");
        }
        try {
            return DriftModels.parse(driftModel);
        } catch (IllegalArgumentException e) {
            throw new CliException("--drift-model: " + e.getMessage());
        }
    }

    /** Starts everything, lets the joins calibrate, stops them (children first); returns problems. */
    private List<String> runMachines(Path dir, List<String> specs) throws CliException, InterruptedException {
        CalibrateCommand.err(String.format(Locale.ROOT, "test bed in %s: %d machines for %d s%s", dir, machines,
                seconds, relayed() ? ", through relays" : ""));
        TestbedProcess serve = start(dir, 0, specs.get(0), List.of("calibrate", "serve", "--port", "0"));
        int port = Integer.parseInt(serve.awaitLine(SERVING, READY_MILLIS).group(1));
        List<TestbedProcess> joins = new ArrayList<>();
        for (int i = 1; i < machines; i++) {
            int base = relayed() ? relay(port, i) : port;
            if (forgerShiftTicks != null) {
                base = forger(base, specs.get(0));
            }
            joins.add(start(dir, i, specs.get(i), List.of("calibrate", "join", "--base", "127.0.0.1:" + base,
                    "--interval-sec", Integer.toString(intervalSec),
                    "--test-ticks", dir.resolve("ticks").resolve(name(i) + TestbedCheck.TICKS_SUFFIX).toString(),
                    "--test-tick-every-us", Long.toString(tickEveryUs))));
        }
        for (TestbedProcess join : joins) {
            join.awaitLine(JOINED, READY_MILLIS);
        }
        Thread.sleep(seconds * 1000L);
        List<String> problems = new ArrayList<>();
        joins.forEach(TestbedProcess::terminate);
        for (TestbedProcess join : joins) {
            join.awaitEnd(END_MILLIS).ifPresent(problems::add);
        }
        serve.terminate();
        serve.awaitEnd(END_MILLIS).ifPresent(problems::add);
        return problems;
    }

    private TestbedProcess start(Path dir, int machine, String spec, List<String> args) throws CliException {
        List<String> command = new ArrayList<>();
        if (pin != null) {
            int cpu = pin.equals("same") ? 0 : TestbedMachines.cpu(machine, Runtime.getRuntime().availableProcessors());
            command.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
        }
        List<String> cli = Launch.cli();
        command.add(cli.get(0));
        command.add("-D" + DprofSettings.SIM_CLOCK_PROPERTY + "=" + spec);
        command.addAll(cli.subList(1, cli.size()));
        command.addAll(args);
        command.addAll(keyArgs);
        command.addAll(List.of("--out", dir.resolve("cal").toString(), "--counters", counters(dir, machine).toString()));
        TestbedProcess p = TestbedProcess.start(name(machine), command, dir.resolve("logs"));
        processes.add(p);
        return p;
    }

    private boolean relayed() {
        return loss > 0 || duplicate > 0 || delayUs > 0 || jitterUs > 0;
    }

    private int relay(int servePort, int machine) throws CliException {
        try {
            UdpRelay relay = UdpRelay.start(new UdpRelay.Settings(0,
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), servePort), delayUs, jitterUs, loss,
                    duplicate, asymmetric ? UdpRelay.Direction.FORWARD : UdpRelay.Direction.BOTH, seed + machine));
            relays.add(relay);
            return relay.port();
        } catch (IllegalArgumentException | IOException e) {
            throw new CliException("cannot start a relay: " + e.getMessage());
        }
    }

    /**
     * A run key in the run folder ({@link SharedKey#RUN_KEY_FILE}) for every machine, so the test bed
     * calibrates as a real deployment does; {@code --insecure} instead when asked for.
     */
    private List<String> keyArgs(Path dir) throws CliException {
        if (insecure) {
            return List.of("--insecure");
        }
        Path file = dir.resolve(SharedKey.RUN_KEY_FILE);
        try {
            if (!Files.exists(file)) {
                SharedKey.generate(file);
            }
        } catch (IOException e) {
            throw new CliException("cannot write the run key " + file + " (" + e.getMessage() + ")");
        }
        return List.of("--key-file", file.toString());
    }

    /** A forger between a join and its base, answering with the reference's clock shifted; returns its port. */
    private int forger(int basePort, String referenceSpec) throws CliException {
        try {
            Forger f = Forger.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), basePort),
                    OrderedClock.of(Optional.of(SimulatedClock.parse(referenceSpec))), forgerShiftTicks);
            forgers.add(f);
            return f.port();
        } catch (IOException e) {
            throw new CliException("cannot start a forger: " + e.getMessage());
        }
    }

    private Map<String, Long> forgerCounts() {
        Map<String, Long> sums = new LinkedHashMap<>();
        for (Forger.Count c : Forger.Count.values()) {
            sums.put(c.name().toLowerCase(Locale.ROOT), forgers.stream().mapToLong(f -> f.count(c)).sum());
        }
        return sums;
    }

    private void killAll() {
        processes.forEach(TestbedProcess::kill);
    }

    private static String name(int machine) {
        return "m" + machine;
    }

    private static Path counters(Path dir, int machine) {
        return dir.resolve("counters").resolve(name(machine) + ".counters");
    }

    private Map<String, Object> setup(long tscHz, Path dir) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("machines", machines);
        s.put("seconds", seconds);
        s.put("intervalSec", intervalSec);
        s.put("driftPpm", driftPpm);
        s.put("driftPeriodS", driftPeriodS);
        s.put("driftModel", driftModel);
        s.put("loss", loss);
        s.put("duplicate", duplicate);
        s.put("delayUs", delayUs);
        s.put("jitterUs", jitterUs);
        s.put("asymmetric", asymmetric);
        s.put("pin", pin == null ? "no" : pin);
        s.put("seed", seed);
        s.put("tickEveryUs", tickEveryUs);
        s.put("outsideSpanS", outsideSpanS);
        s.put("authenticated", !insecure);
        s.put("forgerShiftTicks", forgerShiftTicks);
        s.put("tscHz", tscHz);
        s.put("runFolder", dir.toAbsolutePath().toString());
        return s;
    }

    private Optional<Map<String, Long>> relayCounts() {
        if (relays.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Long> sums = new LinkedHashMap<>();
        for (UdpRelay.Count c : UdpRelay.Count.values()) {
            sums.put(c.name().toLowerCase(Locale.ROOT), relays.stream().mapToLong(r -> r.count(c)).sum());
        }
        return Optional.of(sums);
    }
}
