package dev.dprof.cli;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.consolidator.sync.ClockBasis;
import dev.dprof.consolidator.sync.IntervalDeviation;
import dev.dprof.consolidator.sync.PointSync;
import dev.dprof.consolidator.sync.SyncQuality;
import dev.dprof.consolidator.sync.SyncQualityJson;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code dprof analyze PROFILE sync-quality}: FreeZer next to linear regression and convex hull, on one run. */
@Command(name = "sync-quality", mixinStandardHelpOptions = true,
        description = "Fast sends, reversed messages, inversions and (with simulated clocks) the error against the "
                + "truth, for FreeZer (interval midpoints) and the point methods lr, ch and clc, on the same run.")
final class SyncQualityCommand implements Callable<Integer> {
    @ParentCommand
    AnalyzeCommand parent;

    @Option(names = "--json", description = "print JSON")
    boolean json;

    @Option(names = "--network-floor-ns", paramLabel = "NS", description = "the network's minimum one-way "
            + "transmission time, measured apart from the run (DProf §6 counts fast sends against it); without it "
            + "the fastest matched message is the yardstick")
    Double networkFloorNs;

    @Override
    public Integer call() throws Exception {
        Profile freezer = parent.open();
        if (!"freezer".equals(freezer.info().sync())) {
            throw new CliException(freezer.dir() + ": sync-quality needs a FreeZer profile (this one is '"
                    + freezer.info().sync() + "')");
        }
        Path scratch = Files.createTempDirectory("dprof-sync-");
        try {
            Baselines.Derived derived = Baselines.derive(freezer, scratch);
            if (networkFloorNs != null) {
                if (!(networkFloorNs > 0)) {
                    throw new CliException("--network-floor-ns must be positive, not " + networkFloorNs);
                }
                derived = derived.withNetworkFloor((long) Math.floor(networkFloorNs * freezer.info().referenceTickHz() / 1e9),
                        "the network floor given (--network-floor-ns)");
            }
            List<SyncQuality.Figures> figures = Baselines.quality(derived);
            if (json) {
                System.out.println(Json.text(SyncQualityJson.of(derived, figures)));
            } else {
                print(figures, derived.minimumLatencyTicks() * 1e9 / freezer.info().referenceTickHz(),
                        derived.minimumLatencySource(), freezer.info().truth(), System.out);
                printClc(derived.clc(), System.out);
                printBasis(derived.basis(), System.out);
            }
        } catch (ProfileException e) {
            throw new CliException(e.getMessage());
        } finally {
            Launch.deleteRecursively(scratch);
        }
        return 0;
    }

    static void print(List<SyncQuality.Figures> figures, double lambdaNs, String lambdaSource, boolean truth,
                      PrintStream out) {
        out.printf(Locale.ROOT, "synchronization quality (minimum latency λ %.3f µs: %s)%n", lambdaNs / 1e3,
                lambdaSource);
        out.printf(Locale.ROOT, "%-8s %9s %12s %9s %10s %11s%s%n", "method", "messages", "fast sends", "reversed",
                "inversions", "barrier inv", truth ? "   error mean µs    p99 µs    max µs" : "");
        for (SyncQuality.Figures f : figures) {
            out.printf(Locale.ROOT, "%-8s %9d %11.2f%% %9d %10d %11d%s%n", f.method(), f.messages(), f.fastSendsPercent(),
                    f.reversed(), f.inversions(), f.barrierInversions(), f.errorMeanNs() == null ? ""
                            : String.format(Locale.ROOT, " %15.3f %9.3f %9.3f", f.errorMeanNs() / 1e3,
                            f.errorP99Ns() / 1e3, f.errorMaxNs() / 1e3));
        }
    }

    /**
     * What each point method's clocks rest on, per domain pair: calibration exchanges and messages
     * each way, and whether that is few points.
     */
    static void printBasis(Map<String, List<ClockBasis>> basis, PrintStream out) {
        for (Map.Entry<String, List<ClockBasis>> m : basis.entrySet()) {
            long few = m.getValue().stream().filter(ClockBasis::fewPoints).count();
            out.printf(Locale.ROOT, "%s: clocks placed on %d domain pairs%s%n", m.getKey(), m.getValue().size(),
                    few == 0 ? "" : String.format(Locale.ROOT, ", %d of them on fewer than %d points in a direction",
                            few, ClockBasis.FEW_POINTS));
            m.getValue().forEach(b -> out.println("  " + b.line()));
        }
    }

    /** Becker §6.2: what the controlled logical clock did to process-local timings. */
    static void printClc(PointSync.Correction clc, PrintStream out) {
        IntervalDeviation d = clc.deviation();
        out.printf(Locale.ROOT, "clc: minimum latency %.3f µs within a process, %.3f µs between; over %d local intervals "
                        + "the event position moved by at most %.4f%% (%.3f µs), the event distance by %.4f%% on average "
                        + "(Σ|Δt|/Σt)%n", clc.minimumLatencyWithinNs() / 1e3, clc.minimumLatencyBetweenNs() / 1e3,
                d.intervals(), 100 * d.positionMaxRelative(), d.positionMaxAbsoluteTicks() * 1e6
                        / clc.info().referenceTickHz(), 100 * d.distanceWeightedMean());
        StringBuilder line = new StringBuilder("clc: intervals (share of time) whose length changed by more than");
        for (int i = 0; i < d.thresholds().length; i++) {
            line.append(String.format(Locale.ROOT, " %s%%: %.2f%% (%.2f%%)%s", trim(100 * d.thresholds()[i]),
                    100 * d.intervalsAbove()[i], 100 * d.timeAbove()[i], i + 1 < d.thresholds().length ? "," : ""));
        }
        out.println(line);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
