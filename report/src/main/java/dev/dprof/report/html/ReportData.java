package dev.dprof.report.html;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.causal.CriticalPath;
import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.consolidator.sync.ClockBasis;
import dev.dprof.consolidator.sync.IntervalDeviation;
import dev.dprof.consolidator.sync.SyncQuality;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything the report shows, as one JSON document (the {@code --json} output and the data the
 * HTML page draws): summary and calibration, statistics, straggler scores, what-if curves, the
 * critical path, the synchronization comparison and a timeline sample. Every bound is
 * {@code {"lo","hi"}} in ns (durations) or a unit-free share; truth beside it where the run's
 * clocks were simulated. Each analysis reads the profile in its own streaming pass.
 */
public final class ReportData {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<Double> SWEEP = List.of(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0);

    /**
     * What to include.
     *
     * @param body       the straggler score's work region, or null (no straggler section)
     * @param barrier    its waiting region
     * @param from       the what-if and critical-path span's start region, or null (each thread's first event)
     * @param to         the span's end region, or null (the last event)
     * @param curves     how many regions get a what-if curve (the largest predicted gains at 50%)
     * @param baselines  whether to re-time the run with lr, ch and clc for the comparison (three more profiles)
     */
    public record Options(String body, String barrier, String from, String to, int curves, int maxSpansPerThread,
                          int maxMessages, boolean baselines) {
        /** Curves for up to this many regions (and dynamic instances), the largest gains first. */
        public static final int CURVES = 16;

        public static Options defaults() {
            return new Options(null, null, null, null, CURVES, 2000, 2000, true);
        }
    }

    private ReportData() {
    }

    /** The report's data; {@code scratch} holds the baselines' profiles while they are read. */
    public static ObjectNode build(Profile profile, Options options, Path scratch) throws ProfileException, IOException {
        boolean baselines = options.baselines() && "freezer".equals(profile.info().sync());
        return build(profile, options, baselines ? Baselines.derive(profile, scratch) : null);
    }

    /** The same with the baselines already derived from {@code profile} (null: no comparison). */
    public static ObjectNode build(Profile profile, Options options, Baselines.Derived baselines)
            throws ProfileException {
        ProfileInfo info = profile.info();
        ObjectNode root = MAPPER.createObjectNode();
        summary(info, root.putObject("summary"));
        statistics(ProfileStatistics.compute(profile), root.putArray("regions"));
        if (options.body() != null && options.barrier() != null) {
            straggler(StragglerScore.compute(profile, options.body(), options.barrier()), root.putObject("straggler"));
        }
        whatIf(profile, options, root.putObject("whatif"));
        ObjectNode path = root.putObject("criticalPath");
        // Over the what-if span: start-up and shutdown outside it are not the program's path.
        criticalPath(CriticalPath.compute(profile, options.from(), options.to()), path);
        CriticalPathTrace.read(profile, path.putArray("trace"));
        if (baselines != null) {
            sync(baselines, options, root.putObject("sync"));
        }
        TimelineSample.read(profile, options.maxSpansPerThread(), options.maxMessages(), root.putObject("timeline"));
        return root;
    }

    private static void summary(ProfileInfo info, ObjectNode n) {
        n.put("sync", info.sync()).put("assumption", info.assumption()).put("referenceDomain", info.referenceDomain())
                .put("referenceTickHz", info.referenceTickHz()).put("events", info.events()).put("truth", info.truth())
                .put("matchedMessages", info.messages().matched())
                .put("unmatchedSends", info.messages().unmatchedSends())
                .put("unmatchedReceives", info.messages().unmatchedReceives())
                .put("barrierInstances", info.messages().barrierInstances())
                .put("matchedHandoffs", info.handoffs().matched())
                .put("unmatchedHandoffPuts", info.handoffs().unmatchedPuts())
                .put("unmatchedHandoffTakes", info.handoffs().unmatchedTakes())
                .put("unboundedEvents", info.unboundedEvents()).put("causalityConflicts", info.causalityConflicts());
        ArrayNode unmatched = n.putArray("unmatched");
        info.messages().unmatchedRows().forEach(u -> unmatched.addObject().put("kind", u.kind()).put("event", u.event())
                .put("reason", u.reason()).put("count", u.count()));
        ArrayNode unmatchedLines = n.putArray("unmatchedLines");
        info.messages().unmatchedLines().forEach(unmatchedLines::add);
        ArrayNode processes = n.putArray("processes");
        for (ProfileInfo.Process p : info.processes()) {
            ObjectNode o = processes.addObject().put("index", p.index()).put("label", p.host() + "-" + p.pid())
                    .put("domain", p.domain()).put("quality", p.quality()).put("lostEvents", p.lostEvents())
                    .put("ended", p.ended());
            if (p.clockCheck() != null) {
                o.put("clockCheck", p.clockCheck());
            }
            finite(o, "slopeLow", p.slopeLowApprox());
            finite(o, "slopeHigh", p.slopeHighApprox());
            if (p.calibration() != null) {
                o.put("zeros", p.calibration().zeros()).put("medianZeroWidthNs", p.calibration().medianZeroWidthNs());
                finite(o, "frequencyWidthPpm", p.calibration().frequencyWidthPpm());
                o.put("contradiction", p.calibration().contradiction()).put("fallback", p.calibration().fallback())
                        .put("outsideSpanEvents", p.calibration().outsideSpanEvents());
            }
        }
        ArrayNode leftOut = n.putArray("leftOut");
        info.leftOut().forEach(l -> leftOut.addObject().put("queue", l.queue()).put("file", l.file())
                .put("reason", l.reason()).put("lostEvents", l.lostEvents()).put("lostEventsExact", l.lostEventsExact())
                .put("countedBy", l.countedBy()));
        ArrayNode threads = n.putArray("threads");
        info.streams().forEach(s -> threads.addObject().put("index", s.index()).put("process", s.process())
                .put("name", s.name()));
        ArrayNode regions = n.putArray("regionNames");
        info.regions().forEach(r -> regions.add(r.name()));
        ArrayNode problems = n.putArray("problems");
        info.problems().forEach(problems::add);
    }

    /** JSON has no NaN: a figure that is not a number is null. */
    private static void finite(ObjectNode n, String name, double v) {
        if (Double.isFinite(v)) {
            n.put(name, v);
        } else {
            n.putNull(name);
        }
    }

    private static ObjectNode bound(ObjectNode n, String name, Bound b, double nsPerTick) {
        ObjectNode o = n.putObject(name).put("lo", b.lo() * nsPerTick);
        if (b.bounded()) {
            o.put("hi", b.hi() * nsPerTick);
        } else {
            o.putNull("hi");
        }
        return o;
    }

    /** Every region, then every dynamic instance of a region ({@code name[id]}, e.g. one rank's body). */
    private static void statistics(ProfileStatistics.Result r, ArrayNode rows) {
        double nsPerTick = 1e9 / r.referenceTickHz();
        List<ProfileStatistics.RegionFigures> all = new ArrayList<>(r.regions());
        all.addAll(r.instances());
        for (ProfileStatistics.RegionFigures f : all) {
            ObjectNode o = rows.addObject().put("name", f.name()).put("kind", f.kind()).put("count", f.count())
                    .put("open", f.open());
            bound(o, "totalNs", f.corrected().total(), nsPerTick);
            bound(o, "meanNs", f.corrected().mean(), nsPerTick);
            bound(o, "minNs", f.corrected().min(), nsPerTick);
            bound(o, "maxNs", f.corrected().max(), nsPerTick);
            o.put("probeCorrectionNs", f.correction().hi() * nsPerTick);
            if (f.truth() != null) {
                o.put("truthTotalNs", f.truth().total() * nsPerTick);
            }
        }
    }

    private static void straggler(StragglerScore.Result r, ObjectNode n) {
        n.put("body", r.body()).put("barrier", r.barrier()).put("quality", r.quality());
        ArrayNode processes = n.putArray("processes");
        for (StragglerScore.ProcessScore p : r.processes()) {
            ObjectNode o = processes.addObject().put("process", p.process()).put("label", p.label()).put("lo", p.lo())
                    .put("hi", p.hi());
            if (p.truth() != null) {
                o.put("truth", p.truth());
            }
        }
        ArrayNode threads = n.putArray("threads");
        for (StragglerScore.ThreadScore t : r.threads()) {
            ObjectNode o = threads.addObject().put("process", t.process()).put("thread", t.thread()).put("lo", t.lo())
                    .put("hi", t.hi());
            if (t.truth() != null) {
                o.put("truth", t.truth());
            }
        }
    }

    private static void whatIf(Profile profile, Options options, ObjectNode n) throws ProfileException {
        WhatIf.Result ranked = WhatIf.rank(profile, 0.5, options.from(), options.to());
        List<String> regions = new ArrayList<>();
        for (WhatIf.Prediction p : ranked.predictions()) {
            if (regions.size() < options.curves()) {
                regions.add(p.region());
            }
        }
        n.put("from", options.from()).put("to", options.to()).put("spanNsLo", ranked.spanNsLo())
                .put("spanNsHi", ranked.spanNsHi()).put("quality", ranked.quality());
        ArrayNode ranking = n.putArray("ranking");
        for (WhatIf.Prediction p : ranked.predictions()) {
            prediction(ranking.addObject().put("region", p.region()), p);
        }
        n.set("incomplete", MAPPER.valueToTree(ranked.incomplete()));
        replayNote(n, ranked.noBound(), ranked.notReplayed());
        ArrayNode curves = n.putArray("curves");
        if (regions.isEmpty()) {
            return;
        }
        WhatIf.Result swept = WhatIf.curves(profile, regions, SWEEP, options.from(), options.to());
        for (int r = 0; r < regions.size(); r++) {
            ObjectNode curve = curves.addObject().put("region", regions.get(r));
            ArrayNode points = curve.putArray("points");
            for (int k = 0; k < SWEEP.size(); k++) {
                WhatIf.Prediction p = swept.predictions().get(r * SWEEP.size() + k);
                prediction(points.addObject().put("cut", p.fraction()), p);
            }
        }
    }

    private static void prediction(ObjectNode o, WhatIf.Prediction p) {
        o.put("lo", p.lo()).put("hi", p.hi());
        if (p.truth() != null) {
            o.put("truth", p.truth());
        }
    }

    /** Why the replay's figures have no bound (null: they have), and the processes it ran without. */
    private static void replayNote(ObjectNode n, String noBound, List<String> notReplayed) {
        n.put("noBound", noBound);
        ArrayNode processes = n.putArray("notReplayed");
        notReplayed.forEach(processes::add);
    }

    private static void criticalPath(CriticalPath.Result r, ObjectNode n) {
        double nsPerTick = 1e9 / r.referenceTickHz();
        n.put("from", r.from()).put("to", r.to());
        replayNote(n, r.noBound(), r.notReplayed());
        if (r.noBound() != null) {
            n.putNull("lengthNsLo").putNull("lengthNsHi").putNull("handoffsOnPath");
            n.putArray("shares");
            n.putArray("zeroing");
            return;
        }
        n.put("lengthNsLo", r.lengthTicksLo() * nsPerTick).put("lengthNsHi", r.lengthTicksHi() * nsPerTick);
        ObjectNode hops = n.putObject("handoffsOnPath").put("lo", r.handoffsOnPathLo()).put("hi", r.handoffsOnPathHi());
        if (r.handoffsOnPathTruth() != null) {
            hops.put("truth", r.handoffsOnPathTruth());
        }
        n.set("incomplete", MAPPER.valueToTree(r.incomplete()));
        ArrayNode shares = n.putArray("shares");
        for (CriticalPath.Share s : r.shares()) {
            ObjectNode o = shares.addObject().put("name", s.name()).put("lo", s.lo()).put("hi", s.hi());
            if (s.truth() != null) {
                o.put("truth", s.truth());
            }
        }
        ArrayNode zeroing = n.putArray("zeroing");
        for (CriticalPath.Zeroing z : r.zeroing()) {
            ObjectNode o = zeroing.addObject().put("region", z.region()).put("lo", z.savedLo()).put("hi", z.savedHi());
            if (z.truth() != null) {
                o.put("truth", z.truth());
            }
        }
    }

    private static void sync(Baselines.Derived derived, Options options, ObjectNode n) throws ProfileException {
        ArrayNode methods = n.putArray("methods");
        n.put("minimumLatencyTicks", derived.minimumLatencyTicks()).put("minimumLatencySource",
                derived.minimumLatencySource());
        for (SyncQuality.Figures f : Baselines.quality(derived)) {
            ObjectNode o = methods.addObject().put("method", f.method()).put("messages", f.messages())
                    .put("fastSendsPercent", f.fastSendsPercent()).put("reversed", f.reversed())
                    .put("inversions", f.inversions());
            List<ClockBasis> basis = derived.basis().getOrDefault(f.method(), List.of());
            ArrayNode pairs = o.putArray("basis");
            basis.forEach(b -> pairs.addObject().put("pair", b.pair()).put("calibrationExchanges", b.exchanges())
                    .put("messagesUp", b.messagesUp()).put("messagesDown", b.messagesDown())
                    .put("fewPoints", b.fewPoints()).put("line", b.line()));
            if (f.errorMeanNs() != null) {
                o.put("errorMeanNs", f.errorMeanNs()).put("errorP99Ns", f.errorP99Ns()).put("errorMaxNs", f.errorMaxNs());
            }
            if (options.body() != null && options.barrier() != null) {
                StragglerScore.Result s = StragglerScore.compute(derived.profiles().get(f.method()), options.body(),
                        options.barrier());
                ArrayNode scores = o.putArray("straggler");
                s.processes().forEach(p -> scores.addObject().put("label", p.label()).put("lo", p.lo()).put("hi", p.hi()));
            }
        }
        IntervalDeviation d = derived.clc().deviation();
        n.putObject("clc").put("intervals", d.intervals()).put("distanceWeightedMean", d.distanceWeightedMean())
                .put("positionMaxRelative", d.positionMaxRelative());
        for (Map.Entry<String, Profile> p : derived.profiles().entrySet()) {
            n.withArray("profiles").add(p.getKey());
        }
    }
}
