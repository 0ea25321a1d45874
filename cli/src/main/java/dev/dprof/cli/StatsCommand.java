package dev.dprof.cli;

import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.stats.RegionStats;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.consolidator.stats.RunStatisticsJson;
import dev.dprof.consolidator.statsmode.BoundedFigures;
import dev.dprof.consolidator.statsmode.Scale;
import dev.dprof.consolidator.statsmode.StatisticsModeRun;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dprof stats RUN_DIR…}: per-region figures read straight from the process queues. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Per-region count, total, mean, min and max time, and lost events, from raw run directories "
                + "(no calibration needed: durations stay inside one thread's clock).")
public final class StatsCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "RUN_DIR", description = "process queue directories, or folders holding them")
    List<Path> runs;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON")
    Path json;

    @Option(names = "--strict", description = Strict.HELP)
    boolean strict;

    @Override
    public Integer call() throws CliException, IOException {
        RunStatistics stats;
        try {
            stats = RunStatistics.of(RunDirs.expand(runs));
        } catch (ReadException e) {
            throw new CliException(e.getMessage());
        }
        print(stats, System.out);
        stats.problems().forEach(p -> System.err.println("dprof: " + p));
        if (json != null) {
            Json.write(json, RunStatisticsJson.of(stats));
        }
        Strict.check(strict, stats.problems());
        return 0;
    }

    static void print(RunStatistics stats, PrintStream out) {
        out.printf(Locale.ROOT, "%d processes, %d events, %s%n", stats.processes(), stats.events(), stats.lostPhrase());
        out.printf(Locale.ROOT, "%-40s %10s %6s %14s %12s %12s %12s %14s%n", "region", "count", "open", "total ms",
                "mean µs", "min µs", "max µs", "open ≥ ms");
        boolean statisticsMode = stats.statisticsMode().any();
        for (RegionStats r : stats.regions()) {
            if (statisticsMode && r.count() == 0 && r.open() == 0) {
                continue; // a region of a statistics-mode process: its figures follow below
            }
            boolean timed = r.count() > 0;
            out.printf(Locale.ROOT, "%-40s %10d %6d %14s %12s %12s %12s %14s%n", r.name(), r.count(), r.open(),
                    timed ? fixed(r.totalNs() / 1e6) : "–", timed ? fixed(r.meanNs() / 1e3) : "–",
                    timed ? fixed(r.minNs() / 1e3) : "–", timed ? fixed(r.maxNs() / 1e3) : "–",
                    r.open() > 0 ? fixed(r.openAtLeastNs() / 1e6) : "");
        }
        out.println("(times in ns at each process's nominal tick rate; 'open': instances still running when their "
                + "process's recording ended, not in the count or the times; 'open ≥': how long the longest had run by then)");
        if (stats.statisticsMode().any()) {
            printStatisticsMode(stats.statisticsMode(), stats.statisticsMode().nominal(), out,
                    "bounds on each process's own clock, in ns at its nominal tick rate; `dprof consolidate` and "
                            + "`dprof analyze PROFILE stats` bound them on the reference clock");
        }
        printWeaving(stats.weaving().lines(), out);
    }

    /**
     * The figures of the processes recorded in statistics mode: per region the count, the durations as
     * {@code [lo, hi]} bounds in µs (total in ms), the quantiles with the histogram's relative error, and
     * beside them, as an estimate, the total less the probes' own cost.
     */
    static void printStatisticsMode(StatisticsModeRun run, Scale scale, PrintStream out, String unit) {
        out.printf(Locale.ROOT, "statistics mode: %d processes, %s%s%n", run.processes(),
                (run.lostExact() ? "" : "at least ") + run.lostEvents() + " events lost",
                run.traceWindows() == 0 ? "" : "; " + run.traceWindows() + " trace windows, whose events are above");
        for (StatisticsModeRun.RegionResult r : run.regions(scale)) {
            BoundedFigures f = r.all();
            out.printf(Locale.ROOT, "%s (%s): %d instances over %d intervals%s%n", r.name(), r.kind(), f.count(),
                    r.intervals(), extras(r));
            if (f.count() > 0) {
                printFigures("  ", f, out);
            }
            r.callers().forEach((caller, c) -> {
                if (r.callers().size() > 1 || !caller.equals(StatisticsModeRun.TOP)) {
                    out.printf(Locale.ROOT, "  from %s: %d, total %s ms, mean %s µs%n", caller, c.count(),
                            range(c.total(), 1e6), range(c.mean(), 1e3));
                }
            });
            r.instances().forEach((id, c) -> out.printf(Locale.ROOT, "  instance %d: %d, total %s ms, mean %s µs%n",
                    id, c.count(), range(c.total(), 1e6), range(c.mean(), 1e3)));
            r.peers().forEach((peer, p) -> out.printf(Locale.ROOT, "  %s: %d sends, %d receives%s%n", peer, p.sends(),
                    p.receives(), p.figures().count() == 0 ? "" : ", in " + p.figures().count()
                            + " instances, mean " + range(p.figures().mean(), 1e3) + " µs"));
        }
        out.println("(" + unit + "; quantiles from histograms whose buckets span at most "
                + String.format(Locale.ROOT, "%.2f%%", 100 * BoundedFigures.HISTOGRAM_RELATIVE_ERROR)
                + " of their value; 'less probe cost' is an estimate, not a bound: the probe cost measured at start,"
                + " taken off per instance as the virtual-clock method does)");
        run.probeCosts().forEach(line -> out.println("  probe cost " + line));
    }

    private static String extras(StatisticsModeRun.RegionResult r) {
        StringBuilder b = new StringBuilder();
        if (r.open() > 0) {
            b.append(", ").append(r.open()).append(" open at the end");
        }
        if (r.points() > 0) {
            b.append(", ").append(r.points()).append(" point events (progress, puts and takes)");
        }
        if (r.unexited() > 0) {
            b.append(", ").append(r.unexited()).append(" left open by their thread's end (not counted)");
        }
        if (r.unpairedExits() > 0) {
            b.append(", ").append(r.unpairedExits()).append(" exits without their enter (ignored)");
        }
        if (r.leftOut() > 0) {
            b.append(", ").append(r.leftOut()).append(" beyond the callers, ids or peers a record splits by (in the totals only)");
        }
        return b.toString();
    }

    private static void printFigures(String indent, BoundedFigures f, PrintStream out) {
        out.printf(Locale.ROOT, "%stotal %s ms   less probe cost %s ms (estimate; taken off %s ms)%n", indent,
                range(f.total(), 1e6), range(f.compensated(), 1e6), range(f.probeCost(), 1e6));
        out.printf(Locale.ROOT, "%smean %s µs   min %s µs   max %s µs%n", indent, range(f.mean(), 1e3),
                range(f.min(), 1e3), range(f.max(), 1e3));
        StringBuilder q = new StringBuilder(indent);
        for (BoundedFigures.Quantile quantile : f.quantiles()) {
            q.append(String.format(Locale.ROOT, "p%s %s µs   ", percent(quantile.q()), range(quantile.value(), 1e3)));
        }
        out.println(q.toString().stripTrailing());
    }

    private static String percent(double q) {
        String s = String.format(Locale.ROOT, "%.1f", 100 * q);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }

    /** {@code [lo, hi]} of a bound in ns, divided by {@code unit}; an unbounded end is {@code ∞}. */
    private static String range(Bound b, double unit) {
        // Rounded outward, so the printed interval still contains the bound.
        String hi = b.bounded() ? String.format(Locale.ROOT, "%.3f", Math.ceil(b.hi() / unit * 1e3) / 1e3) : "∞";
        return String.format(Locale.ROOT, "[%.3f, %s]", Math.floor(b.lo() / unit * 1e3) / 1e3, hi);
    }

    private static String fixed(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** The YAML regions that matched no method (and the processes that cannot say), as {@code consolidate} prints them. */
    static void printWeaving(List<String> lines, PrintStream out) {
        if (!lines.isEmpty()) {
            out.println("YAML regions that matched no method:");
            lines.forEach(line -> out.println("  " + line));
        }
    }
}
