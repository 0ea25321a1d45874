package dev.dprof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.consolidator.sync.SyncQuality;
import dev.dprof.consolidator.sync.SyncQualityJson;
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
        List<SyncQuality.Figures> quality = Baselines.quality(derived);
        double hz = profiles.get("freezer").info().referenceTickHz();
        long fastestMessage = derived.fastestMessageTicks();
        System.out.printf(Locale.ROOT, "%nsynchronizations on this run (the paper's Table 2; FreeZer on interval midpoints, "
                + "the others are points)%n");
        SyncQualityCommand.print(quality, derived.minimumLatencyTicks() * 1e9 / hz, derived.minimumLatencySource(),
                profiles.get("freezer").info().truth(), System.out);
        // The stricter yardstick as well: the fastest message itself, which sits exactly at its λ.
        List<SyncQuality.Figures> strict = Baselines.quality(profiles, fastestMessage);
        System.out.printf(Locale.ROOT, "fast sends against the fastest message instead (λ %.3f µs):", fastestMessage / hz * 1e6);
        strict.forEach(f -> System.out.printf(Locale.ROOT, " %s %.2f%%", f.method(), f.fastSendsPercent()));
        System.out.println();
        SyncQualityCommand.printClc(derived.clc(), System.out);
        root.set("clc", SyncQualityJson.clc(derived.clc()));
        SyncQualityCommand.printBasis(derived.basis(), System.out);
        root.set("basis", SyncQualityJson.basis(derived.basis()));
        ObjectNode fast = root.putObject("fastSends");
        quality.forEach(f -> fast.put(f.method(), f.fastSendsPercent()));
        ObjectNode fastStrict = root.putObject("fastSendsAgainstFastestMessage");
        strict.forEach(f -> fastStrict.put(f.method(), f.fastSendsPercent()));
        root.putObject("minimumLatencyNs").put("used", derived.minimumLatencyTicks() * 1e9 / hz)
                .put("source", derived.minimumLatencySource()).put("fastestMessage", fastestMessage * 1e9 / hz);

        double knownCut = (imbalance - 1) / imbalance;
        String region = body + "[" + straggler + "]";
        double freezerMid = (freezerScore[0] + freezerScore[1]) / 2;
        ObjectNode score = (ObjectNode) root.get("stragglerScore");
        ObjectNode whatif = (ObjectNode) root.get("whatif");
        ObjectNode withFreezerScore = whatif.putObject("withFreezerScore");
        ObjectNode errors = root.putObject("predictionErrorByMethod");
        StringBuilder table3 = new StringBuilder();
        StringBuilder table4 = new StringBuilder();
        StringBuilder table5 = new StringBuilder();
        table3.append(row("FreeZer", range(freezerScore[0], freezerScore[1])));
        table4.append(row("FreeZer", range(whatif.get("freezer").get("lo").asDouble(),
                whatif.get("freezer").get("hi").asDouble()), range(whatif.get("pipeline").get("lo").asDouble(),
                whatif.get("pipeline").get("hi").asDouble()), "–"));
        table5.append(row("FreeZer", range(root.get("predictionError").get("lo").asDouble(),
                root.get("predictionError").get("hi").asDouble()), range(root.get("pipelinePredictionError").get("lo")
                .asDouble(), root.get("pipelinePredictionError").get("hi").asDouble()), "–"));
        for (Map.Entry<String, Profile> p : profiles.entrySet()) {
            if (p.getKey().equals("freezer")) {
                continue;
            }
            Profile profile = p.getValue();
            double own = StragglerScore.compute(profile, body, barrier).processes().stream()
                    .filter(s -> rankOf.applyAsInt(s.process()) == straggler).mapToDouble(StragglerScore.ProcessScore::lo)
                    .findFirst().orElse(0);
            List<WhatIf.Prediction> predictions = WhatIf.predict(profile, region,
                    List.of(knownCut, clamp(own), clamp(freezerMid)), body, barrier).boundedPredictions();
            double known = predictions.get(0).lo();
            double ownSpeedup = predictions.get(1).lo();
            double freezerSpeedup = predictions.get(2).lo();
            double knownError = DemoValidation.predictionError(imbalancedSec, balancedSec, known, known)[0];
            double ownError = DemoValidation.predictionError(imbalancedSec, balancedSec, ownSpeedup, ownSpeedup)[0];
            double freezerScoreError = DemoValidation.predictionError(imbalancedSec, balancedSec, freezerSpeedup,
                    freezerSpeedup)[0];
            String name = p.getKey().toUpperCase(java.util.Locale.ROOT);
            table3.append(row(name, pct(own)));
            table4.append(row(name, pct(known), pct(ownSpeedup), pct(freezerSpeedup)));
            table5.append(row(name, pct(knownError), pct(ownError), pct(freezerScoreError)));
            score.put(p.getKey(), own);
            whatif.put(p.getKey(), known);
            withFreezerScore.put(p.getKey(), freezerSpeedup);
            errors.putObject(p.getKey()).put("knownCut", knownError).put("ownScore", ownError)
                    .put("freezerScore", freezerScoreError);
        }
        JsonNode truth = score.get("truth");
        System.out.printf(Locale.ROOT, "%nstraggler score of rank %d (Table 3)%s%n%s", straggler,
                truth == null ? "" : String.format(Locale.ROOT, "; truth %s", pct(truth.asDouble())), table3);
        JsonNode whatifTruth = whatif.get("freezer").get("truth");
        System.out.printf(Locale.ROOT, "%npredicted speedup (Table 4): %-22s %-24s %-24s%s%n%s", "known cut "
                        + pct(knownCut), "cut by own score", "cut by FreeZer's score", whatifTruth == null ? ""
                        : "   (known cut, truth " + pct(whatifTruth.asDouble()) + ")", table4);
        System.out.printf(Locale.ROOT, "%nprediction error against the balanced runs (Table 5): %-22s %-24s %-24s%n%s",
                "known cut", "own score", "FreeZer's score", table5);
    }

    private static String row(String method, String... cells) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "  %-8s", method));
        for (String c : cells) {
            b.append(String.format(Locale.ROOT, " %-24s", c));
        }
        return b.append('\n').toString();
    }

    private static String range(double lo, double hi) {
        return "[" + pct(lo) + ", " + pct(hi) + "]";
    }

    private static double clamp(double share) {
        return Math.max(0, Math.min(1, share));
    }

    private static String pct(double f) {
        return String.format(Locale.ROOT, "%.3f%%", 100 * f);
    }
}
