package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.consolidator.sync.SyncQuality;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The demo's side-by-side of FreeZer and the point synchronizations on the same run, one table per
 * table of the DProf paper (§6: fast sends, straggler scores, predicted speedups — with each
 * method's own straggler score and with FreeZer's — and prediction errors), next to the truth.
 */
final class DemoComparison {
    private DemoComparison() {
    }

    /**
     * @param rankOf       a process index's rank
     * @param freezerScore FreeZer's straggler score of the straggler, [lo, hi]
     */
    static void report(Baselines.Derived derived, String body, String barrier, int straggler, double imbalance,
                       ToIntFunction<Integer> rankOf, double[] freezerScore, double imbalancedSec, double balancedSec,
                       ObjectNode root) throws ProfileException {
        Map<String, Profile> profiles = derived.profiles();
        List<SyncQuality.Figures> quality = Baselines.quality(profiles);
        System.out.printf(Locale.ROOT, "%nsynchronizations on this run (the paper's Tables 2–5; FreeZer as [lo, hi], "
                + "the others are points)%n");
        SyncQualityCommand.print(quality, SyncQuality.minimumLatencyTicks(profiles.get("freezer")) * 1e9
                / profiles.get("freezer").info().referenceTickHz(), profiles.get("freezer").info().truth(), System.out);
        SyncQualityCommand.printClc(derived.clc(), System.out);
        SyncQualityCommand.clcJson(root.putObject("clc"), derived.clc());
        ObjectNode fast = root.putObject("fastSends");
        quality.forEach(f -> fast.put(f.method(), f.fastSendsPercent()));

        double knownCut = (imbalance - 1) / imbalance;
        String region = body + "[" + straggler + "]";
        double freezerMid = (freezerScore[0] + freezerScore[1]) / 2;
        System.out.printf(Locale.ROOT, "%n%-8s %-18s %-24s %-24s %-24s %-20s %-20s%n", "method", "straggler score",
                "speedup, known cut", "speedup, own score", "speedup, FreeZer score", "error, known cut",
                "error, own score");
        ObjectNode score = (ObjectNode) root.get("stragglerScore");
        ObjectNode whatif = (ObjectNode) root.get("whatif");
        ObjectNode withFreezerScore = whatif.putObject("withFreezerScore");
        ObjectNode errors = root.putObject("predictionErrorByMethod");
        for (Map.Entry<String, Profile> p : profiles.entrySet()) {
            if (p.getKey().equals("freezer")) {
                continue;
            }
            Profile profile = p.getValue();
            double own = StragglerScore.compute(profile, body, barrier).processes().stream()
                    .filter(s -> rankOf.applyAsInt(s.process()) == straggler).mapToDouble(StragglerScore.ProcessScore::lo)
                    .findFirst().orElse(0);
            List<WhatIf.Prediction> predictions = WhatIf.predict(profile, region,
                    List.of(knownCut, clamp(own), clamp(freezerMid)), body, barrier).predictions();
            double known = predictions.get(0).lo();
            double ownSpeedup = predictions.get(1).lo();
            double freezerSpeedup = predictions.get(2).lo();
            double knownError = DemoValidation.predictionError(imbalancedSec, balancedSec, known, known)[0];
            double ownError = DemoValidation.predictionError(imbalancedSec, balancedSec, ownSpeedup, ownSpeedup)[0];
            System.out.printf(Locale.ROOT, "%-8s %-18s %-24s %-24s %-24s %-20s %-20s%n", p.getKey(), pct(own), pct(known),
                    pct(ownSpeedup), pct(freezerSpeedup), pct(knownError), pct(ownError));
            score.put(p.getKey(), own);
            whatif.put(p.getKey(), known);
            withFreezerScore.put(p.getKey(), freezerSpeedup);
            errors.putObject(p.getKey()).put("knownCut", knownError).put("ownScore", ownError);
        }
    }

    private static double clamp(double share) {
        return Math.max(0, Math.min(1, share));
    }

    private static String pct(double f) {
        return String.format(Locale.ROOT, "%.3f%%", 100 * f);
    }
}
