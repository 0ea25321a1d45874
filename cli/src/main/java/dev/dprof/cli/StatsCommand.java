package dev.dprof.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.stats.RegionStats;
import dev.dprof.consolidator.stats.RunStatistics;
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
            Json.write(json, toJson(stats));
        }
        Strict.check(strict, stats.problems());
        return 0;
    }

    static void print(RunStatistics stats, PrintStream out) {
        out.printf(Locale.ROOT, "%d processes, %d events, %s%n", stats.processes(), stats.events(), stats.lostPhrase());
        out.printf(Locale.ROOT, "%-40s %10s %6s %14s %12s %12s %12s %14s%n", "region", "count", "open", "total ms",
                "mean µs", "min µs", "max µs", "open ≥ ms");
        for (RegionStats r : stats.regions()) {
            boolean timed = r.count() > 0;
            out.printf(Locale.ROOT, "%-40s %10d %6d %14s %12s %12s %12s %14s%n", r.name(), r.count(), r.open(),
                    timed ? fixed(r.totalNs() / 1e6) : "–", timed ? fixed(r.meanNs() / 1e3) : "–",
                    timed ? fixed(r.minNs() / 1e3) : "–", timed ? fixed(r.maxNs() / 1e3) : "–",
                    r.open() > 0 ? fixed(r.openAtLeastNs() / 1e6) : "");
        }
        out.println("(times in ns at each process's nominal tick rate; 'open': instances still running when their "
                + "process's recording ended, not in the count or the times; 'open ≥': how long the longest had run by then)");
        printWeaving(stats.weaving().lines(), out);
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

    static ObjectNode toJson(RunStatistics stats) {
        ObjectMapper mapper = Json.MAPPER;
        ObjectNode root = mapper.createObjectNode();
        ArrayNode regions = root.putArray("regions");
        for (RegionStats r : stats.regions()) {
            regions.addObject().put("name", r.name()).put("count", r.count()).put("totalNs", r.totalNs())
                    .put("meanNs", r.meanNs()).put("minNs", r.minNs()).put("maxNs", r.maxNs()).put("open", r.open())
                    .put("openAtLeastNs", r.openAtLeastNs());
        }
        root.put("lostEvents", stats.lostEvents());
        root.put("lostEventsExact", stats.lostExact());
        root.put("events", stats.events());
        root.put("processes", stats.processes());
        root.set("leftOut", mapper.valueToTree(stats.leftOut().stream().map(ProfileInfo.LeftOut::of).toList()));
        root.put("openRegions", stats.openRegions());
        root.set("weaving", mapper.valueToTree(stats.weaving().toInfo()));
        root.put("unit", "ns at the nominal tick rate");
        return root;
    }
}
