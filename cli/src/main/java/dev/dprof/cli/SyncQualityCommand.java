package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.consolidator.sync.SyncQuality;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code dprof analyze PROFILE sync-quality}: FreeZer next to linear regression and convex hull, on one run. */
@Command(name = "sync-quality", mixinStandardHelpOptions = true,
        description = "Fast sends, reversed messages, inversions and (with simulated clocks) the error against the "
                + "truth, for FreeZer (interval midpoints) and the point methods lr and ch, on the same run.")
final class SyncQualityCommand implements Callable<Integer> {
    @ParentCommand
    AnalyzeCommand parent;

    @Option(names = "--json", description = "print JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Profile freezer = parent.open();
        if (!"freezer".equals(freezer.info().sync())) {
            throw new CliException(freezer.dir() + ": sync-quality needs a FreeZer profile (this one is '"
                    + freezer.info().sync() + "')");
        }
        Path scratch = Files.createTempDirectory("dprof-sync-");
        try {
            List<SyncQuality.Figures> figures = Baselines.quality(Baselines.derive(freezer, scratch));
            long lambda = SyncQuality.minimumLatencyTicks(freezer);
            double lambdaNs = lambda * 1e9 / freezer.info().referenceTickHz();
            if (json) {
                System.out.println(Json.MAPPER.writeValueAsString(toJson(figures, lambdaNs)));
            } else {
                print(figures, lambdaNs, freezer.info().truth(), System.out);
            }
        } catch (ProfileException e) {
            throw new CliException(e.getMessage());
        } finally {
            Launch.deleteRecursively(scratch);
        }
        return 0;
    }

    static void print(List<SyncQuality.Figures> figures, double lambdaNs, boolean truth, PrintStream out) {
        out.printf(Locale.ROOT, "synchronization quality (minimum latency %.3f µs, %s)%n", lambdaNs / 1e3,
                truth ? "the true one" : "FreeZer's proven floor");
        out.printf(Locale.ROOT, "%-8s %9s %12s %9s %10s %11s%s%n", "method", "messages", "fast sends", "reversed",
                "inversions", "barrier inv", truth ? "   error mean µs    p99 µs    max µs" : "");
        for (SyncQuality.Figures f : figures) {
            out.printf(Locale.ROOT, "%-8s %9d %11.2f%% %9d %10d %11d%s%n", f.method(), f.messages(), f.fastSendsPercent(),
                    f.reversed(), f.inversions(), f.barrierInversions(), f.errorMeanNs() == null ? ""
                            : String.format(Locale.ROOT, " %15.3f %9.3f %9.3f", f.errorMeanNs() / 1e3,
                            f.errorP99Ns() / 1e3, f.errorMaxNs() / 1e3));
        }
    }

    static ObjectNode toJson(List<SyncQuality.Figures> figures, double lambdaNs) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("minimumLatencyNs", lambdaNs);
        ArrayNode methods = root.putArray("methods");
        for (SyncQuality.Figures f : figures) {
            ObjectNode n = methods.addObject().put("method", f.method()).put("messages", f.messages())
                    .put("fastSends", f.fastSends()).put("fastSendsPercent", f.fastSendsPercent())
                    .put("reversed", f.reversed()).put("barrierExits", f.barrierExits())
                    .put("barrierInversions", f.barrierInversions()).put("inversions", f.inversions());
            if (f.errorMeanNs() != null) {
                n.putObject("errorNs").put("mean", f.errorMeanNs()).put("p99", f.errorP99Ns()).put("max", f.errorMaxNs());
            }
        }
        return root;
    }
}
