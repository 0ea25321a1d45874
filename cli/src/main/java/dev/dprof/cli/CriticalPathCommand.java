package dev.dprof.cli;

import dev.dprof.consolidator.analysis.causal.CriticalPath;
import dev.dprof.consolidator.analysis.causal.CriticalPathJson;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code dprof analyze PROFILE critical-path [--from R] [--to R]}: the critical path profile and
 * critical-path zeroing, over the whole run or over the span {@code analyze whatif} takes.
 */
@Command(name = "critical-path", mixinStandardHelpOptions = true,
        description = "The longest path through the run, each region's share of it, and per region the path "
                + "recomputed with that region's time set to zero (critical-path zeroing), as sound [lo, hi]; a handoff "
                + "between threads counts under its site, and the handoff edges on the path are counted. With --from/--to,"
                + " the path ends at the span's end and what lies before its start is left out.")
final class CriticalPathCommand implements Callable<Integer> {
    @ParentCommand
    AnalyzeCommand parent;

    @Option(names = "--json", description = "print JSON")
    boolean json;

    @Option(names = "--from", paramLabel = "REGION",
            description = "the span starts at the earliest first enter of this region (default: the first event)")
    String from;

    @Option(names = "--to", paramLabel = "REGION",
            description = "the span ends at the last exit of this region (default: the last event)")
    String to;

    @Override
    public Integer call() throws Exception {
        CriticalPath.Result r = parent.run(p -> CriticalPath.compute(p, from, to));
        if (json) {
            System.out.println(Json.text(CriticalPathJson.of(r)));
            return 0;
        }
        String span = (r.from() == null ? "first event" : r.from()) + " → " + (r.to() == null ? "last event" : r.to());
        if (ReplayNote.printNoBound("critical path, span " + span, r.noBound(), System.out)) {
            return 0;
        }
        ReplayNote.printNotReplayed(r.notReplayed(), System.out);
        System.out.printf(Locale.ROOT, "critical path, span %s → %s: [%.3f, %.3f] ms%s (%s; %s)%n",
                r.from() == null ? "first event" : r.from(), r.to() == null ? "last event" : r.to(), ms(r, r.lengthTicksLo()),
                ms(r, r.lengthTicksHi()), r.lengthTicksTruth() == null ? ""
                        : String.format(Locale.ROOT, ", truth %.3f", ms(r, r.lengthTicksTruth())), r.quality(),
                r.assumption());
        System.out.printf(Locale.ROOT, "handoff edges on the path: [%d, %d]%s%n", r.handoffsOnPathLo(),
                r.handoffsOnPathHi(), r.handoffsOnPathTruth() == null ? ""
                        : ", truth " + NoBound.fixed(r.handoffsOnPathTruth(), 1));
        String truth = r.lengthTicksTruth() == null ? "" : "    truth";
        System.out.printf(Locale.ROOT, "%-36s %-21s %-25s%s%n", "region (inclusive)", "share of the path", "ms on it", truth);
        for (CriticalPath.Share s : r.shares()) {
            if (s.ticksHi() == 0) {
                continue;
            }
            System.out.printf(Locale.ROOT, "%-36s [%7s%%, %7s%%] [%10.3f, %10.3f]%s%n", s.name(),
                    NoBound.fixed(100 * s.lo(), 3), NoBound.fixed(100 * s.hi(), 3), ms(r, s.ticksLo()), ms(r, s.ticksHi()), percent(s.truth()));
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%-36s %-21s %-25s%s%n", "zeroing: region", "path shorter by", "new length ms", truth);
        for (CriticalPath.Zeroing z : r.zeroing()) {
            System.out.printf(Locale.ROOT, "%-36s [%7s%%, %7s%%] [%10.3f, %10.3f]%s%n", z.region(),
                    NoBound.fixed(100 * z.savedLo(), 3), NoBound.fixed(100 * z.savedHi(), 3), ms(r, z.newLengthTicksLo()), ms(r, z.newLengthTicksHi()), percent(z.truth()));
        }
        IncompleteNote.print(r.incomplete(), System.out);
        return 0;
    }

    private static String percent(Double truth) {
        return truth == null ? "" : " " + NoBound.fixed(100 * truth, 3) + "%";
    }

    private static double ms(CriticalPath.Result r, long ticks) {
        return ticks * 1e3 / r.referenceTickHz();
    }
}
