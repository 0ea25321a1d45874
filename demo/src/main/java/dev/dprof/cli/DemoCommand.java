package dev.dprof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.calibrator.net.CalibrationFiles;
import dev.dprof.calibrator.net.CalibrationServer;
import dev.dprof.calibrator.net.OrderedClock;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.consolidate.ConsolidationException;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.report.html.ReportData;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dprof demo}: the whole story on one machine (DESIGN.md, DProf §6). A calibration base
 * in this JVM (the reference "machine", with its own simulated clock), N worker JVMs of a bundled
 * distributed example, each its own "machine" with its own simulated clock (rates 1.23–1.40,
 * random offsets, as in the paper's appendix) and the agent calibrating against the base; then
 * consolidation, statistics and the straggler score, printed next to the ground truth that the
 * simulated clocks know. With {@code --app service}, no straggler by default: the demo checks dCOZ
 * on the service's request pipeline instead, against runs whose journal syncs are faster
 * ({@link DemoStageSwitch}).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run a distributed example with an injected straggler on simulated machines, consolidate, "
                + "and print the analyses next to the ground truth.")
public final class DemoCommand implements Callable<Integer> {
    /** Body and barrier regions of each example (their YAML names them). */
    /** Ping-pongs of the loopback floor measurement (about 0.1 s). */
    private static final int LOOPBACK_ROUNDS = 3000;
    private static final Map<String, String[]> REGIONS = Map.of(
            "kmeans", new String[] {"examples/kmeans/dprof-distributed.yaml", "kmeans.assign", "kmeans.barrier"},
            "pagerank", new String[] {"examples/pagerank/dprof.yaml", "pagerank.compute", "pagerank.barrier"},
            "cc", new String[] {"examples/cc/dprof.yaml", "cc.propagate", "cc.barrier"},
            "service", new String[] {"examples/service/dprof.yaml", null, null});

    @Option(names = "--app", defaultValue = "kmeans", description = "kmeans | pagerank | cc | service (default ${DEFAULT-VALUE})")
    String app;

    @Option(names = "--workers", defaultValue = "4", description = "worker JVMs (default ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--threads", defaultValue = "2", description = "threads per worker (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--straggler", description = "the rank given extra work (default 1; service: none)")
    Integer stragglerOption;

    /** The rank given extra work, or -1 for none. */
    private int straggler;

    @Option(names = "--imbalance", defaultValue = "2", description = "the straggler's share, times normal (default ${DEFAULT-VALUE})")
    double imbalance;

    @Option(names = "--iterations", description = "iterations of the app (default: the app's own)")
    Integer iterations;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the simulated clocks (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--runs", defaultValue = "3", description = "imbalanced and as many balanced runs for the what-if"
            + " check, alternating; the first imbalanced one is profiled (service: slow and fast runs; default"
            + " ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--sync-speedup", paramLabel = "C", defaultValue = "0.5", converter = WhatIfCommand.Fraction.class,
            description = "service: the fraction of each journal sync the fast runs remove (default 50%%)")
    double syncSpeedup;

    @Option(names = "--out", defaultValue = "dprof-demo", description = "output folder (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the results as JSON")
    Path json;

    @Override
    public Integer call() throws Exception {
        String[] regions = REGIONS.get(app);
        if (regions == null) {
            throw new CliException("--app: unknown example '" + app + "' (expected kmeans, pagerank, cc, service)");
        }
        boolean service = regions[1] == null;
        straggler = stragglerOption != null ? stragglerOption : service ? -1 : 1;
        if (!service && straggler < 0) {
            throw new CliException("--straggler " + straggler + " is not a rank: the " + app + " demo needs a straggler");
        }
        if (service && !(syncSpeedup > 0 && syncSpeedup < 1)) {
            throw new CliException("--sync-speedup must be above 0% and below 100%, found " + syncSpeedup);
        }
        if (straggler >= workers) {
            throw new CliException("--straggler " + straggler + " is not a rank of " + workers + " workers");
        }
        Path home = Launch.home();
        Path runDir = out.resolve("runs");
        Path calibration = out.resolve("calibration");
        Path profileDir = out.resolve("profile");
        Launch.deleteRecursively(out);
        Files.createDirectories(runDir);

        SplittableRandom random = new SplittableRandom(seed);
        long tscHz = Math.round(CalibrationFiles.nominalTickHz(OrderedClock.of(Optional.empty())));
        SimulatedClock referenceSim = SimulatedClock.parse("rate=1.0,offset=" + random.nextLong(1L << 40)
                + ",tsc-hz=" + tscHz);
        DomainClock reference = OrderedClock.of(Optional.of(referenceSim));
        Map<String, Integer> rankOfDomain = new HashMap<>();
        List<String> rankSims = new ArrayList<>();
        for (int rank = 0; rank < workers; rank++) {
            String spec = String.format(Locale.ROOT, "rate=%.5f,offset=%d,tsc-hz=%d", 1.23 + 0.17 * random.nextDouble(),
                    random.nextLong(1L << 42) - (1L << 41), tscHz);
            rankSims.add(spec);
            rankOfDomain.put(new DomainClock(reference.source() == dev.dprof.clock.ClockSource.NANOTIME
                    ? dev.dprof.clock.ClockSource.NANOTIME : dev.dprof.clock.ClockSource.RDTSC, () -> 0,
                    Optional.of(SimulatedClock.parse(spec))).domainId(), rank);
        }

        // The demo starts both ends itself, so it authenticates them with a key of its own.
        Path key = out.resolve(SharedKey.RUN_KEY_FILE);
        CalibrationServer server = CalibrationServer.start(0, reference, Optional.of(SharedKey.generate(key)),
                line -> { }, line -> System.err.println("dprof: " + line));
        CalibrationFile referenceFile = CalibrationFiles.create(calibration, reference, Optional.empty(),
                CalibrationFiles.nominalTickHz(reference));
        System.out.printf(Locale.ROOT, "dprof demo: %s, %d workers × %d threads, %s;"
                        + " every worker its own simulated clock, calibrated against this JVM (UDP %d)%n",
                app, workers, threads, service ? String.format(Locale.ROOT, "the fast runs' journal syncs %.0f%% shorter%s",
                        100 * syncSpeedup, straggler < 0 ? "" : String.format(Locale.ROOT, ", rank %d does %.1f× the work",
                                straggler, imbalance))
                        : String.format(Locale.ROOT, "rank %d does %.1f× the work", straggler, imbalance), server.port());
        if (runs < 1) {
            throw new CliException("--runs must be at least 1");
        }
        List<Double> imbalancedSec = new ArrayList<>();
        List<Double> balancedSec = new ArrayList<>();
        List<Path> otherImbalancedRuns = new ArrayList<>();
        try {
            Path yaml = workerConfig(home.resolve(regions[0]), server.port(), key, out);
            // Alternating, so that a drift of the machine's load hits both kinds alike.
            // For the service, "imbalanced" is slow and "balanced" fast: the journal's syncs shorter.
            int total = 2 * runs;
            for (int i = 0; i < total; i++) {
                boolean balanced = i % 2 == 1;
                Path dir = i == 0 ? runDir : out.resolve("validation").resolve((balanced ? (service ? "fast-" : "balanced-")
                        : (service ? "slow-" : "imbalanced-")) + i / 2);
                Files.createDirectories(dir);
                if (i > 0 && !balanced) {
                    otherImbalancedRuns.add(dir);
                }
                if (i > 0) {
                    System.out.printf(Locale.ROOT, "%nvalidation run %d of %d: %s%n", i, total - 1, service
                            ? (balanced ? String.format(Locale.ROOT, "fast (each journal sync %.0f%% shorter)", 100 * syncSpeedup)
                                    : "slow")
                            : balanced ? "balanced (the straggler's extra work removed)" : "imbalanced");
                }
                // a straggler asked for in the service stays in its fast runs: only the journal changes
                List<String> command = clusterCommand(home, yaml, dir, balanced && !service ? 1 : imbalance, rankSims);
                if (service) {
                    command.addAll(List.of("--", "--sync-speedup", Double.toString(balanced ? syncSpeedup : 0)));
                }
                List<String> lines = Launch.runCapturing(command, "the " + app + " cluster");
                (balanced ? balancedSec : imbalancedSec).add(DemoValidation.longestSpan(lines, "the " + app + " cluster"));
            }
        } finally {
            server.close();
            referenceFile.end();
            referenceFile.close();
        }

        ProfileInfo info;
        try {
            info = Consolidator.run(new Consolidator.Options(List.of(runDir), List.of(calibration), profileDir,
                    Consolidator.Sync.FREEZER, DriftModels.parse("bounded:1"), Optional.empty()), n -> { });
        } catch (ConsolidationException e) {
            throw new CliException(e.getMessage());
        }
        Profile profile = Profile.open(profileDir);
        long[] containment = containment(profile);
        System.out.printf(Locale.ROOT, "%d events, %d clock domains; %d of %d converted ticks contain their truth%n",
                info.events(), info.processes().size() + 1, containment[1], containment[0]);
        System.out.println();
        AnalyzeCommand.Stats.print(ProfileStatistics.compute(profile), System.out);
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("app", app).put("workers", workers).put("straggler", straggler).put("events", info.events())
                .put("domains", info.processes().size() + 1);
        root.putObject("containment").put("checked", containment[0]).put("contained", containment[1]);
        Baselines.Derived baselines = null;
        if (service) {
            List<Profile> slowRuns = new ArrayList<>(List.of(profile));
            slowRuns.addAll(consolidate(otherImbalancedRuns, calibration));
            DemoStageSwitch.report(slowRuns, syncSpeedup, imbalancedSec, balancedSec, root);
        } else {
            StragglerScore.ProcessScore detected = straggler(profile, regions[1], regions[2], rankOfDomain, info, root);
            List<Profile> others = consolidate(otherImbalancedRuns, calibration);
            DemoValidation.report(profile, others, regions[1], regions[2], straggler, imbalance, rankOf(info, rankOfDomain,
                    detected.process()), new double[] {detected.lo(), detected.hi()}, imbalancedSec, balancedSec, root);
            JsonNode injected = root.get("stragglerScore").get("freezer");
            if (injected == null) {
                throw new CliException("rank " + straggler + " never entered " + regions[1] + ": no straggler to compare");
            }
            baselines = Baselines.derive(profile, out.resolve("baselines"));
            try {
                long floorNs = LoopbackFloor.minimumOneWayNanos(LOOPBACK_ROUNDS);
                baselines = baselines.withNetworkFloor((long) Math.floor(floorNs * info.referenceTickHz() / 1e9),
                        "the loopback TCP floor, measured after the run (one-way, one clock, min of "
                                + LOOPBACK_ROUNDS + " ping-pongs)");
            } catch (IOException e) {
                System.err.println("dprof: the loopback TCP floor could not be measured (" + e.getMessage()
                        + "); fast sends count against the fastest matched message");
            }
            DemoComparison.report(baselines, regions[1], regions[2], straggler,
                    imbalance, p -> rankOf(info, rankOfDomain, p),
                    new double[] {injected.get("lo").asDouble(), injected.get("hi").asDouble()},
                    DemoValidation.median(imbalancedSec), DemoValidation.median(balancedSec), root);
        }
        if (json != null) {
            Json.write(json, root);
        }
        // The report's what-if and critical path over the span the demo predicts for.
        String from = service ? DemoStageSwitch.SPAN : regions[1];
        String to = service ? DemoStageSwitch.SPAN : regions[2];
        ReportCommand.write(profile, new ReportData.Options(regions[1], regions[2], from, to,
                ReportData.Options.CURVES, 2000, 2000, true), baselines, out.resolve("report.html"),
                out.resolve("report.json"));
        ReportCommand.trace(profile, out.resolve("trace.perfetto"));
        return 0;
    }

    private List<String> clusterCommand(Path home, Path yaml, Path runDir, double share, List<String> rankSims)
            throws CliException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", Launch.examplesJar(home).toString(), "dev.dprof.examples.Cluster", app,
                "--workers", Integer.toString(workers), "--threads", Integer.toString(threads),
                "--jvm-arg", "-javaagent:" + AttachCommand.agentJar() + "=config=" + yaml.toAbsolutePath()
                        + ",out=" + runDir.toAbsolutePath()));
        if (straggler >= 0) {
            command.addAll(List.of("--straggler", Integer.toString(straggler), "--imbalance", Double.toString(share)));
        }
        if (iterations != null) {
            command.addAll(List.of("--iterations", iterations.toString()));
        }
        for (int rank = 0; rank < workers; rank++) {
            command.addAll(List.of("--rank-jvm-arg", rank + "=-Ddprof.clock.sim=" + rankSims.get(rank)));
        }
        return command;
    }

    /** Consolidates each run on its own, into a sibling folder {@code <run>-profile}. */
    private static List<Profile> consolidate(List<Path> runs, Path calibration) throws CliException, ProfileException,
            IOException {
        List<Profile> profiles = new ArrayList<>();
        for (Path run : runs) {
            Path other = run.resolveSibling(run.getFileName() + "-profile");
            try {
                Consolidator.run(new Consolidator.Options(List.of(run), List.of(calibration), other,
                        Consolidator.Sync.FREEZER, DriftModels.parse("bounded:1"), Optional.empty()), n -> { });
            } catch (ConsolidationException e) {
                throw new CliException(e.getMessage());
            }
            profiles.add(Profile.open(other));
        }
        return profiles;
    }

    private static int rankOf(ProfileInfo info, Map<String, Integer> rankOfDomain, int process) {
        return rankOfDomain.getOrDefault(info.processes().get(process).domain(), -1);
    }

    /** The app's YAML with the calibration base and the run's key added. */
    private static Path workerConfig(Path yaml, int port, Path key, Path out) throws IOException {
        String text = Files.readString(yaml) + "\ncalibration:\n  base: 127.0.0.1:" + port + "\n  intervalSec: 2\n"
                + "  keyFile: \"" + key.toAbsolutePath() + "\"\n";
        Path copy = out.resolve(yaml.getFileName());
        Files.writeString(copy, text);
        return copy;
    }

    /** Events of non-reference domains whose truth lies in their interval: [checked, contained]. */
    private static long[] containment(Profile profile) throws ProfileException, IOException {
        long checked = 0;
        long contained = 0;
        if (!profile.info().truth()) {
            return new long[] {0, 0};
        }
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                checked++;
                if (e.lo <= e.truth && e.truth <= e.hi) {
                    contained++;
                }
            }
        } catch (dev.dprof.format.FormatException e) {
            throw new ProfileException(e.getMessage());
        }
        return new long[] {checked, contained};
    }

    /** Prints and records the straggler scores; returns the detected straggler's. */
    private StragglerScore.ProcessScore straggler(Profile profile, String body, String barrier,
                                                  Map<String, Integer> rankOfDomain, ProfileInfo info, ObjectNode root)
            throws ProfileException {
        StragglerScore.Result r = StragglerScore.compute(profile, body, barrier);
        int detected = -1;
        double best = -1;
        StragglerScore.ProcessScore injected = null;
        StragglerScore.ProcessScore detectedScore = null;
        double othersMaxHi = 0;
        System.out.printf(Locale.ROOT, "%nstraggler score (share of the span; body %s, barrier %s; %s)%n", body, barrier,
                r.assumption());
        System.out.printf(Locale.ROOT, "%-6s %-22s %10s %10s %10s%n", "rank", "process", "lo", "hi", "truth");
        for (StragglerScore.ProcessScore p : r.processes()) {
            int rank = rankOfDomain.getOrDefault(info.processes().get(p.process()).domain(), -1);
            System.out.printf(Locale.ROOT, "%-6d %-22s %10.4f %10.4f %10s%n", rank, p.label(), p.lo(), p.hi(),
                    p.truth() == null ? "-" : String.format(Locale.ROOT, "%.4f", p.truth()));
            if (p.lo() > best) {
                best = p.lo();
                detected = rank;
                detectedScore = p;
            }
            if (rank == straggler) {
                injected = p;
            } else {
                othersMaxHi = Math.max(othersMaxHi, p.hi());
            }
        }
        System.out.printf(Locale.ROOT, "detected straggler: rank %d (injected: rank %d)%n", detected, straggler);
        ObjectNode s = root.putObject("stragglerScore");
        s.put("process", straggler).put("detected", detected);
        if (injected != null) {
            s.putObject("freezer").put("lo", injected.lo()).put("hi", injected.hi());
            if (injected.truth() != null) {
                s.put("truth", injected.truth());
            }
        }
        s.put("othersMaxHi", othersMaxHi);
        s.put("quality", r.quality());
        s.put("assumption", r.assumption());
        return detectedScore;
    }
}
