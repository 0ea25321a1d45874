package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.consolidator.analysis.stats.Durations;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.RegionFigures;
import dev.dprof.consolidator.analysis.stats.TruthDurations;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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
                System.out.println(Json.text(toJson(r)));
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

        static ObjectNode toJson(StragglerScore.Result r) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            ArrayNode threads = root.putArray("threads");
            for (StragglerScore.ThreadScore t : r.threads()) {
                ObjectNode n = threads.addObject().put("process", t.process()).put("thread", t.thread())
                        .put("lo", t.lo()).put("hi", t.hi());
                if (t.truth() != null) {
                    n.put("truth", t.truth());
                }
            }
            ArrayNode processes = root.putArray("processes");
            for (StragglerScore.ProcessScore p : r.processes()) {
                ObjectNode n = processes.addObject().put("process", p.process()).put("label", p.label())
                        .put("lo", p.lo()).put("hi", p.hi());
                if (p.truth() != null) {
                    n.put("truth", p.truth());
                }
            }
            root.put("quality", r.quality());
            root.put("assumption", r.assumption());
            root.put("spanSecondsMin", r.spanSecondsMin());
            root.put("spanSecondsMax", r.spanSecondsMax());
            return root;
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
            if (json) {
                System.out.println(Json.text(toJson(r)));
            } else {
                print(r, System.out);
            }
            r.notes().forEach(n -> System.err.println("dprof: " + n));
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

        static ObjectNode toJson(ProfileStatistics.Result r) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            ArrayNode regions = root.putArray("regions");
            for (ProfileStatistics.RegionFigures f : r.regions()) {
                figures(r, regions.addObject().put("name", f.name()).put("kind", f.kind()), f);
            }
            ArrayNode instances = root.putArray("instances");
            for (ProfileStatistics.RegionFigures f : r.instances()) {
                figures(r, instances.addObject().put("name", f.name()).put("kind", f.kind()), f);
            }
            ArrayNode callers = root.putArray("callers");
            for (ProfileStatistics.RegionFigures f : r.callers()) {
                figures(r, callers.addObject().put("caller", f.caller()).put("name", f.name()), f);
            }
            ArrayNode peers = root.putArray("peers");
            for (ProfileStatistics.PeerFigures p : r.peers()) {
                ObjectNode n = peers.addObject().put("from", p.from()).put("fromLabel", p.fromLabel())
                        .put("to", p.to()).put("toLabel", p.toLabel()).put("quality", p.quality())
                        .put("messages", p.transmission().count());
                durations(r, n.putObject("transmissionNs"), p.transmission());
                if (p.transmissionTruth() != null) {
                    truth(r, n.putObject("truthTransmissionNs"), p.transmissionTruth());
                }
                n.put("barrierInstances", p.barrierInstances());
                bound(r, n.putObject("syncDelayNs"), p.syncDelay());
                if (p.syncDelayTruth() != null) {
                    n.put("truthSyncDelayNs", r.nanos(p.syncDelayTruth()));
                }
            }
            ArrayNode waits = root.putArray("barrierWaits");
            for (ProfileStatistics.BarrierWait w : r.barrierWaits()) {
                ObjectNode n = waits.addObject().put("process", w.process()).put("label", w.label())
                        .put("quality", w.quality()).put("instances", w.instances());
                bound(r, n.putObject("waitNs"), w.delay());
                if (w.truth() != null) {
                    n.put("truthWaitNs", r.nanos(w.truth()));
                }
            }
            ProfileStatistics.Totals t = r.totals();
            ObjectNode totals = root.putObject("totals").put("events", t.events()).put("instances", t.instances())
                    .put("open", t.open()).put("outsideWindow", t.outsideWindow())
                    .put("unpairedEnters", t.unpairedEnters()).put("unpairedExits", t.unpairedExits())
                    .put("backwardTicks", t.backwardTicks()).put("probeCorrectionNs", r.nanos(t.probeCorrection().hi()));
            bound(r, totals.putObject("probeCorrectionRangeNs"), t.probeCorrection());
            bound(r, totals.putObject("probeCostNs"), t.probeCost());
            totals.put("matchedMessages", t.matchedMessages()).put("unmatchedSends", t.unmatchedSends())
                    .put("unmatchedReceives", t.unmatchedReceives()).put("ambiguousMessages", t.ambiguousMessages())
                    .put("barrierInstances", t.barrierInstances())
                    .put("unfinishedBarrierInstances", t.unfinishedBarrierInstances());
            root.put("unit", ProfileStatistics.UNIT);
            root.put("referenceTickHz", r.referenceTickHz());
            root.put("quality", r.quality());
            root.put("assumption", r.assumption());
            root.put("truth", r.truth());
            root.put("probeCost", "subtracted per instance: max(0, Δk − (nested events + 1) × probe cost) × [slopeLow, "
                    + "slopeHigh]; the uncorrected figures are under 'uncorrected'");
            ArrayNode notes = root.putArray("notes");
            r.notes().forEach(notes::add);
            return root;
        }

        private static void figures(ProfileStatistics.Result r, ObjectNode n, ProfileStatistics.RegionFigures f) {
            n.put("count", f.count()).put("open", f.open()).put("outsideWindow", f.outsideWindow())
                    .put("quality", f.quality());
            Durations d = f.corrected();
            bound(r, n.putObject("totalNs"), d.total());
            bound(r, n.putObject("meanNs"), d.mean());
            bound(r, n.putObject("minNs"), d.min());
            bound(r, n.putObject("maxNs"), d.max());
            n.put("probeCorrectionNs", r.nanos(f.correction().hi()));
            bound(r, n.putObject("probeCorrectionRangeNs"), f.correction());
            ObjectNode u = n.putObject("uncorrected");
            Durations m = f.measured();
            bound(r, u.putObject("totalNs"), m.total());
            bound(r, u.putObject("meanNs"), m.mean());
            bound(r, u.putObject("minNs"), m.min());
            bound(r, u.putObject("maxNs"), m.max());
            TruthDurations t = f.truth();
            if (t != null) {
                n.put("truthTotalNs", r.nanos(t.total())).put("truthMeanNs", r.nanos(t.mean()))
                        .put("truthMinNs", r.nanos(t.min())).put("truthMaxNs", r.nanos(t.max()));
            }
        }

        private static void durations(ProfileStatistics.Result r, ObjectNode n, Durations d) {
            bound(r, n.putObject("total"), d.total());
            bound(r, n.putObject("mean"), d.mean());
            bound(r, n.putObject("min"), d.min());
            bound(r, n.putObject("max"), d.max());
        }

        private static void truth(ProfileStatistics.Result r, ObjectNode n, TruthDurations t) {
            n.put("total", r.nanos(t.total())).put("mean", r.nanos(t.mean())).put("min", r.nanos(t.min()))
                    .put("max", r.nanos(t.max()));
        }

        /** {@code {"lo", "hi"}} in ns; an unbounded {@code hi} is null. */
        private static void bound(ProfileStatistics.Result r, ObjectNode n, Bound b) {
            n.put("lo", r.nanos(b.lo()));
            if (b.bounded()) {
                n.put("hi", r.nanos(b.hi()));
            } else {
                n.putNull("hi");
            }
        }
    }
}
