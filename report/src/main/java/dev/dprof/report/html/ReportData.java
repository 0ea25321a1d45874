package dev.dprof.report.html;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.causal.CriticalPath;
import dev.dprof.consolidator.analysis.causal.CriticalPathJson;
import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.analysis.causal.WhatIfJson;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.analysis.stats.StatisticsJson;
import dev.dprof.consolidator.analysis.straggler.StragglerJson;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.json.ResultJson;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.consolidator.sync.SyncQualityJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything the report shows, as one JSON document (the {@code --json} output and the data the
 * HTML page draws). Each analysis is in its own JSON form, the one {@code dprof analyze … --json}
 * prints ({@code statistics}: {@link StatisticsJson}, {@code straggler}: {@link StragglerJson},
 * {@code whatif}: {@link WhatIfJson}, {@code criticalPath}: {@link CriticalPathJson}, {@code sync}:
 * {@link SyncQualityJson}); the report adds a few fields of its own at a form's top level and
 * changes none of the form's: {@code whatif.curves} (the Coz curves, each point a prediction's form), {@code criticalPath.trace}
 * (the path through the midpoints, {@link CriticalPathTrace}) and {@code sync.straggler} (each
 * method's straggler score). Its own sections are {@code summary} (from {@code profile.json}) and
 * {@code timeline} ({@link TimelineSample}). A figure without a bound is null. Each analysis reads
 * the profile in its own streaming pass.
 */
public final class ReportData {
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

        boolean straggler() {
            return body != null && barrier != null;
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
        ObjectNode root = ResultJson.object();
        summary(profile.info(), root.putObject("summary"));
        root.set("statistics", StatisticsJson.of(ProfileStatistics.compute(profile)));
        if (options.straggler()) {
            root.set("straggler", StragglerJson.of(StragglerScore.compute(profile, options.body(), options.barrier())));
        }
        root.set("whatif", whatIf(profile, options));
        // Over the what-if span: start-up and shutdown outside it are not the program's path.
        ObjectNode path = CriticalPathJson.of(CriticalPath.compute(profile, options.from(), options.to()));
        CriticalPathTrace.read(profile, path.putArray("trace"));
        root.set("criticalPath", path);
        if (baselines != null) {
            root.set("sync", sync(baselines, options));
        }
        TimelineSample.read(profile, options.maxSpansPerThread(), options.maxMessages(), root.putObject("timeline"));
        return ResultJson.finite(root);
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
        // profile.json's own form of the counts ({@code messages.unmatched}), and the lines every output prints
        n.set("unmatched", ResultJson.tree(info.messages().unmatchedRows()));
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
            o.put("slopeLow", p.slopeLowApprox()).put("slopeHigh", p.slopeHighApprox());
            if (p.calibration() != null) {
                o.put("zeros", p.calibration().zeros()).put("medianZeroWidthNs", p.calibration().medianZeroWidthNs())
                        .put("frequencyWidthPpm", p.calibration().frequencyWidthPpm())
                        .put("contradiction", p.calibration().contradiction()).put("fallback", p.calibration().fallback())
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

    /**
     * Every region ranked by its gain at a 50% cut, and the report's {@code curves}: the Coz curve
     * (cuts 0–100%) of the {@link Options#curves} first, each point a prediction's form.
     */
    private static ObjectNode whatIf(Profile profile, Options options) throws ProfileException {
        WhatIf.Result ranked = WhatIf.rank(profile, 0.5, options.from(), options.to());
        ObjectNode n = WhatIfJson.of(ranked);
        List<String> regions = ranked.predictions().stream().limit(options.curves()).map(WhatIf.Prediction::region)
                .toList();
        ArrayNode curves = n.putArray("curves");
        if (regions.isEmpty()) {
            return n;
        }
        WhatIf.Result swept = WhatIf.curves(profile, regions, SWEEP, options.from(), options.to());
        for (int r = 0; r < regions.size(); r++) {
            ArrayNode points = curves.addObject().put("region", regions.get(r)).putArray("points");
            for (int k = 0; k < SWEEP.size(); k++) {
                points.add(WhatIfJson.prediction(swept, swept.predictions().get(r * SWEEP.size() + k)));
            }
        }
        return n;
    }

    /** The comparison, and the report's {@code straggler}: by method, the straggler score on its profile. */
    private static ObjectNode sync(Baselines.Derived derived, Options options) throws ProfileException {
        ObjectNode n = SyncQualityJson.of(derived, Baselines.quality(derived));
        if (options.straggler()) {
            ObjectNode scores = n.putObject("straggler");
            for (Map.Entry<String, Profile> p : derived.profiles().entrySet()) {
                scores.set(p.getKey(), StragglerJson.of(StragglerScore.compute(p.getValue(), options.body(),
                        options.barrier())));
            }
        }
        return n;
    }
}
