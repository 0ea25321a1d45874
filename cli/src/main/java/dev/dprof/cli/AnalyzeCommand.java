package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.consolidator.analysis.stats.Durations;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.RegionFigures;
import dev.dprof.consolidator.analysis.stats.StatisticsJson;
import dev.dprof.consolidator.analysis.stats.TruthDurations;
import dev.dprof.consolidator.analysis.straggler.StragglerJson;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.statsmode.ProfileStatisticsMode;
import dev.dprof.consolidator.statsmode.StatisticsModeJson;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/** {@code dprof analyze PROFILE <analysis>}: analyses of a consolidated profile, as bounds. */
@Command(name = "analyze", mixinStandardHelpOptions = true, description = "Analyses of a consolidated profile.",
        subcommands = {AnalyzeCommand.Straggler.class, AnalyzeCommand.Stats.class, WhatIfCommand.class,
                CriticalPathCommand.class, SyncQualityCommand.class})
public final class AnalyzeCommand {
    @Parameters(index = "0", paramLabel = "PROFILE", description = "a folder written by 'dprof consolidate'")
    Path profile;

    @Option(names = "--strict", description = Strict.HELP)
    boolean strict;

    Profile open() throws CliException {
        return run(p -> p);
    }

    /** An analysis of the profile. */
    interface Analysis<T> {
        T of(Profile profile) throws ProfileException;
    }

    /** Opens the profile and runs {@code analysis} on it; a bad profile is one clear line. */
    <T> T run(Analysis<T> analysis) throws CliException {
        try {
            Profile p = Profile.open(profile);
            Strict.list(p.info().problems());
            Strict.check(strict, p.info().problems());
            return analysis.of(p);
        } catch (ProfileException e) {
            throw new CliException(e.getMessage());
        }
    }

    @Command(name = "straggler", mixinStandardHelpOptions = true,
            description = "dCSP straggler score: share of the span in which a thread (process) is in the body region "
                    + "while all others are in the barrier region, as sound [lo, hi].")
    static final class Straggler implements Callable<Integer> {
        @ParentCommand
        AnalyzeCommand parent;

        @Option(names = "--body", required = true, paramLabel = "REGION", description = "the work region")
        String body;

        @Option(names = "--barrier", required = true, paramLabel = "REGION", description = "the waiting region")
        String barrier;

        @Option(names = "--json", description = "print JSON")
        boolean json;

        @Override
        public Integer call() throws Exception {
            StragglerScore.Result r = parent.run(p -> StragglerScore.compute(p, body, barrier));
            if (json) {
                System.out.println(Json.text(StragglerJson.of(r)));
                return 0;
            }
            System.out.printf(Locale.ROOT, "straggler scores (body %s, barrier %s; span %s–%s s; %s; %s)%n",
                    r.body(), r.barrier(), NoBound.fixed(r.spanSecondsMin(), 3), NoBound.fixed(r.spanSecondsMax(), 3),
                    r.quality(), r.assumption());
            System.out.printf(Locale.ROOT, "%-30s %10s %10s %10s%n", "process", "lo", "hi", "truth");
            for (StragglerScore.ProcessScore p : r.processes()) {
                System.out.printf(Locale.ROOT, "%-30s %10s %10s %10s%n", p.label(), NoBound.fixed(p.lo(), 4),
                        NoBound.fixed(p.hi(), 4), truth(p.truth()));
            }
            System.out.printf(Locale.ROOT, "%-30s %10s %10s %10s%n", "thread", "lo", "hi", "truth");
            for (StragglerScore.ThreadScore t : r.threads()) {
                System.out.printf(Locale.ROOT, "%-30s %10s %10s %10s%n", t.process() + "/" + t.thread(),
                        NoBound.fixed(t.lo(), 4), NoBound.fixed(t.hi(), 4), truth(t.truth()));
            }
            return 0;
        }

        private static String truth(Double t) {
            return t == null ? "-" : NoBound.fixed(t, 4);
        }
    }

    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "Per-region count, total, mean, min and max of inclusive times as sound [lo, hi], probe cost "
                    + "subtracted; the same by calling region; message transmission and barrier delays per process pair.")
    static final class Stats implements Callable<Integer> {
        @ParentCommand
        AnalyzeCommand parent;

        @Option(names = "--json", description = "print JSON")
        boolean json;

        @Override
        public Integer call() throws Exception {
            ProfileStatistics.Result r = parent.run(ProfileStatistics::compute);
            List<String> problems = new ArrayList<>();
            Optional<ProfileStatisticsMode.Figures> mode = parent.run(p -> ProfileStatisticsMode.read(p.dir(), p.info(),
                    problems));
            if (json) {
                ObjectNode node = StatisticsJson.of(r);
                mode.ifPresent(m -> node.set("statisticsMode", StatisticsModeJson.of(m.run(), m.scale())));
                System.out.println(Json.text(node));
            } else {
                print(r, System.out);
                mode.ifPresent(m -> {
                    System.out.println();
                    StatsCommand.printStatisticsMode(m.run(), m.scale(), System.out, ProfileStatistics.UNIT
                            + ", sound bounds on the reference clock; the intervals cover ["
                            + NoBound.fixed(r.nanos(m.coveredFromLo()) / 1e6, 3) + ", "
                            + NoBound.fixed(r.nanos(m.coveredToHi()) / 1e6, 3) + "] ms of it");
                });
            }
            r.notes().forEach(n -> System.err.println("dprof: " + n));
            problems.forEach(n -> System.err.println("dprof: " + n));
            return 0;
        }

        static void print(ProfileStatistics.Result r, PrintStream out) {
            ProfileStatistics.Totals t = r.totals();
            out.printf(Locale.ROOT, "statistics (%s; %s)%n", r.quality(), r.assumption());
            out.printf(Locale.ROOT, "%d events, %d instances, %d still open; probe cost subtracted per instance: "
                            + "(events nested in it + 1) × its process's probe cost%n", t.events(), t.instances(), t.open());
            String truth = r.truth() ? String.format(Locale.ROOT, " %14s", "truth ms") : "";
            out.printf(Locale.ROOT, "%-32s %9s %5s %-25s %-23s %-23s %-23s %11s %-25s%s%n", "region", "count", "open",
                    "total ms [lo, hi]", "mean µs", "min µs", "max µs", "−probe ms", "measured total ms", truth);
            for (ProfileStatistics.RegionFigures f : r.regions()) {
                Durations d = f.corrected();
                out.printf(Locale.ROOT, "%-32s %9d %5d %-25s %-23s %-23s %-23s %11s %-25s%s%n", clip(f.name(), 32),
                        f.count(), f.open(), timed(r, f, d.total(), 1e6), timed(r, f, d.mean(), 1e3),
                        timed(r, f, d.min(), 1e3), timed(r, f, d.max(), 1e3), fixed(r.nanos(f.correction().hi()) / 1e6),
                        timed(r, f, f.measured().total(), 1e6), truthColumn(r, f.truth()));
            }
            out.printf(Locale.ROOT, "%-32s %9s %5s %-25s %-23s %-23s %-23s %11s%n", "(all regions)", "", "", "", "", "", "",
                    fixed(r.nanos(t.probeCorrection().hi()) / 1e6));
            out.printf(Locale.ROOT, "(%s, %s GHz, shown in ms and µs. Each [lo, hi] is a sound bound; the figures "
                    + "have the probe cost taken off ('−probe', summed over nested regions on the last line), "
                    + "'measured' keeps it%s.)%n", ProfileStatistics.UNIT,
                    String.format(Locale.ROOT, "%.4f", r.referenceTickHz() / 1e9),
                    r.truth() ? "; the truth is of the measured time" : "");
            if (!r.instances().isEmpty()) {
                out.println();
                figureRows(r, out, "region[instance]", 32, r.instances(), RegionFigures::name);
            }
            if (!r.callers().isEmpty()) {
                out.println();
                figureRows(r, out, "caller → region", 50, r.callers(), f -> f.caller() + " → " + f.name());
            }
            boolean messages = r.peers().stream().anyMatch(p -> p.transmission().count() > 0);
            if (messages) {
                out.println();
                out.printf(Locale.ROOT, "%-44s %9s %-25s %-23s %-23s %-23s%s%n", "sender → receiver", "messages",
                        "transmission ms", "mean µs", "min µs", "max µs", truth);
                for (ProfileStatistics.PeerFigures p : r.peers()) {
                    Durations d = p.transmission();
                    if (d.count() > 0) {
                        out.printf(Locale.ROOT, "%-44s %9d %-25s %-23s %-23s %-23s%s%n",
                                clip(p.fromLabel() + " → " + p.toLabel(), 44), d.count(), range(r, d.total(), 1e6),
                                range(r, d.mean(), 1e3), range(r, d.min(), 1e3), range(r, d.max(), 1e3),
                                truthColumn(r, p.transmissionTruth()));
                    }
                }
            }
            boolean barriers = r.peers().stream().anyMatch(p -> p.barrierInstances() > 0);
            if (barriers || !r.barrierWaits().isEmpty()) {
                out.println();
                out.printf(Locale.ROOT, "%-44s %9s %-25s%s%n", "barrier: process waited for → process", "instances",
                        "sync delay ms", r.truth() ? String.format(Locale.ROOT, " %14s", "truth ms") : "");
                for (ProfileStatistics.PeerFigures p : r.peers()) {
                    if (p.barrierInstances() > 0) {
                        out.printf(Locale.ROOT, "%-44s %9d %-25s%s%n", clip(p.fromLabel() + " → " + p.toLabel(), 44),
                                p.barrierInstances(), range(r, p.syncDelay(), 1e6), truthTotal(r, p.syncDelayTruth()));
                    }
                }
                for (ProfileStatistics.BarrierWait w : r.barrierWaits()) {
                    out.printf(Locale.ROOT, "%-44s %9d %-25s%s%n", clip(w.label() + " → last enter", 44), w.instances(),
                            range(r, w.delay(), 1e6), truthTotal(r, w.truth()));
                }
            }
        }

        /** A header and one row per figure: the columns of the regions' table, labelled by {@code label}. */
        private static void figureRows(ProfileStatistics.Result r, PrintStream out, String header, int width,
                                       List<RegionFigures> rows, Function<RegionFigures, String> label) {
            String truth = r.truth() ? String.format(Locale.ROOT, " %14s", "truth ms") : "";
            out.printf(Locale.ROOT, "%-" + width + "s %9s %5s %-25s %-23s %-23s %-23s %11s %-25s%s%n", header, "count",
                    "open", "total ms [lo, hi]", "mean µs", "min µs", "max µs", "−probe ms", "measured total ms", truth);
            for (RegionFigures f : rows) {
                Durations d = f.corrected();
                out.printf(Locale.ROOT, "%-" + width + "s %9d %5d %-25s %-23s %-23s %-23s %11s %-25s%s%n",
                        clip(label.apply(f), width), f.count(), f.open(), timed(r, f, d.total(), 1e6),
                        timed(r, f, d.mean(), 1e3), timed(r, f, d.min(), 1e3), timed(r, f, d.max(), 1e3),
                        fixed(r.nanos(f.correction().hi()) / 1e6), timed(r, f, f.measured().total(), 1e6),
                        truthColumn(r, f.truth()));
            }
        }

        private static String truthColumn(ProfileStatistics.Result r, TruthDurations t) {
            if (!r.truth()) {
                return "";
            }
            return String.format(Locale.ROOT, " %14s", t == null ? "-" : fixed(r.nanos(t.total()) / 1e6));
        }

        private static String truthTotal(ProfileStatistics.Result r, Long ticks) {
            if (!r.truth()) {
                return "";
            }
            return String.format(Locale.ROOT, " %14s", ticks == null ? "-" : fixed(r.nanos(ticks) / 1e6));
        }

        /** A duration's bound, or "open" for a region whose every instance was still open (it has no duration). */
        private static String timed(ProfileStatistics.Result r, RegionFigures f, Bound b, double per) {
            return f.count() == 0 ? (f.open() > 0 ? "open" : "–") : range(r, b, per);
        }

        private static String range(ProfileStatistics.Result r, Bound b, double per) {
            return "[" + fixed(r.nanos(b.lo()) / per) + ", "
                    + (b.bounded() ? fixed(r.nanos(b.hi()) / per) : NoBound.TEXT) + "]";
        }

        private static String fixed(double v) {
            return NoBound.fixed(v, 3);
        }

        private static String clip(String s, int width) {
            return s.length() <= width ? s : s.substring(0, width - 1) + "…";
        }
    }
}
