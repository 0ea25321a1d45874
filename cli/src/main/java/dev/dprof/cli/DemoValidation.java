package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's check of dCOZ against reality (DProf §6 steps 2–3): the speedup predicted from the
 * profiled imbalanced run, against the measured spans of imbalanced and balanced runs (balanced =
 * the straggler's extra work removed). Prediction error as the paper defines it,
 * {@code |T_predicted − T_actual| / T_actual} with {@code T_predicted = T_imbalanced × (1 − s)};
 * over a predicted interval of {@code s}, its smallest and largest value.
 */
public final class DemoValidation {
    private static final Pattern CLUSTER_LINE = Pattern.compile("^cluster: rank (\\d+) exit (-?\\d+) span ([0-9.]+) s$");

    private DemoValidation() {
    }

    /** The longest span the cluster reported (seconds), from its output. */
    static double longestSpan(List<String> lines, String what) throws CliException {
        double longest = Double.NaN;
        for (String line : lines) {
            Matcher m = CLUSTER_LINE.matcher(line);
            if (m.matches()) {
                double s = Double.parseDouble(m.group(3));
                longest = Double.isNaN(longest) ? s : Math.max(longest, s);
            }
        }
        if (Double.isNaN(longest)) {
            throw new CliException(what + " reported no span");
        }
        return longest;
    }

    public static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** Interquartile range, quartiles by linear interpolation. */
    static double iqr(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return quantile(v, 0.75) - quantile(v, 0.25);
    }

    private static double quantile(double[] sorted, double q) {
        double at = q * (sorted.length - 1);
        int i = (int) Math.floor(at);
        int j = Math.min(sorted.length - 1, i + 1);
        return sorted[i] + (at - i) * (sorted[j] - sorted[i]);
    }

    /**
     * The prediction of the median run, by the middle of its bound (one profile is one sample of a
     * noisy machine); of an even number, the lower middle one.
     */
    static WhatIf.Prediction medianPrediction(List<WhatIf.Prediction> perRun) {
        List<WhatIf.Prediction> sorted = new java.util.ArrayList<>(perRun);
        sorted.sort(java.util.Comparator.comparingDouble(p -> p.lo() + p.hi()));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** {@code [min, max]} of the prediction error over predicted speedups in {@code [lo, hi]}. */
    public static double[] predictionError(double imbalanced, double actual, double lo, double hi) {
        double predictedLo = imbalanced * (1 - hi);
        double predictedHi = imbalanced * (1 - lo);
        double min = actual >= predictedLo && actual <= predictedHi ? 0
                : Math.min(Math.abs(predictedLo - actual), Math.abs(predictedHi - actual)) / actual;
        double max = Math.max(Math.abs(predictedLo - actual), Math.abs(predictedHi - actual)) / actual;
        return new double[] {min, max};
    }

    /**
     * Predicts, compares and prints; adds {@code whatif}, {@code actual}, {@code predictionError} and
     * {@code pipelinePredictionError} to {@code root}.
     *
     * @param pipelineScore the straggler score measured for the detected straggler, [lo, hi]
     */
    static void report(Profile profile, List<Profile> otherImbalanced, String body, String barrier, int straggler,
                       double imbalance, int detected, double[] pipelineScore, List<Double> imbalancedSec,
                       List<Double> balancedSec, ObjectNode root) throws ProfileException {
        double knownCut = (imbalance - 1) / imbalance;
        String region = body + "[" + straggler + "]";
        WhatIf.Result known = WhatIf.predict(profile, region, List.of(knownCut, 1.0), body, barrier);
        WhatIf.Prediction first = known.boundedPredictions().get(0);
        WhatIf.Prediction zeroing = known.boundedPredictions().get(1);
        // One profile is one sample of a noisy machine: every imbalanced run was recorded, so the
        // prediction is that of the median run (by the middle of its bound).
        List<WhatIf.Prediction> perRun = new java.util.ArrayList<>(List.of(first));
        for (Profile other : otherImbalanced) {
            perRun.add(WhatIf.predict(other, region, List.of(knownCut), body, barrier).boundedPredictions().get(0));
        }
        WhatIf.Prediction cut = medianPrediction(perRun);
        WhatIf.Result pipeline = WhatIf.predict(profile, body + "[" + detected + "]",
                List.of(clamp(pipelineScore[0]), clamp(pipelineScore[1])), body, barrier);
        double pipelineLo = pipeline.boundedPredictions().get(0).lo();
        double pipelineHi = pipeline.boundedPredictions().get(1).hi();

        double imbalanced = median(imbalancedSec);
        double balanced = median(balancedSec);
        double actualSpeedup = 1 - balanced / imbalanced;
        double[] error = predictionError(imbalanced, balanced, cut.lo(), cut.hi());
        double[] pipelineError = predictionError(imbalanced, balanced, pipelineLo, pipelineHi);

        System.out.printf(Locale.ROOT, "%nwhat-if (dCOZ), span %s → %s, %s%n", body, barrier, known.assumption());
        System.out.printf(Locale.ROOT, "  %-44s [%7.3f%%, %7.3f%%]%s%n", "known cut: " + region + " by "
                + percent(knownCut), 100 * first.lo(), 100 * first.hi(), truth(first.truth()));
        System.out.printf(Locale.ROOT, "  %-44s %s; median [%7.3f%%, %7.3f%%]%n", "the same in each imbalanced run",
                perRun.stream().map(p -> String.format(Locale.ROOT, "%.3f%%", 50 * (p.lo() + p.hi())))
                        .collect(java.util.stream.Collectors.joining(" ")), 100 * cut.lo(), 100 * cut.hi());
        System.out.printf(Locale.ROOT, "  %-44s [%7.3f%%, %7.3f%%]%s%n", "critical-path zeroing of " + region,
                100 * zeroing.lo(), 100 * zeroing.hi(), truth(zeroing.truth()));
        System.out.printf(Locale.ROOT, "  %-44s [%7.3f%%, %7.3f%%]%n", "pipeline: " + body + "[" + detected + "] by its "
                + "score [" + percent(pipelineScore[0]) + ", " + percent(pipelineScore[1]) + "]", 100 * pipelineLo,
                100 * pipelineHi);
        System.out.printf(Locale.ROOT, "actual: imbalanced %.3f s, balanced %.3f s (medians of %d and %d runs; spans %s"
                        + " and %s): speedup %.3f%%%n", imbalanced, balanced, imbalancedSec.size(), balancedSec.size(),
                seconds(imbalancedSec), seconds(balancedSec), 100 * actualSpeedup);
        System.out.printf(Locale.ROOT, "prediction error: known cut [%.3f%%, %.3f%%], pipeline [%.3f%%, %.3f%%]%n",
                100 * error[0], 100 * error[1], 100 * pipelineError[0], 100 * pipelineError[1]);

        ObjectNode w = root.putObject("whatif");
        w.put("region", region).put("cut", knownCut);
        ObjectNode f = w.putObject("freezer").put("lo", first.lo()).put("hi", first.hi());
        if (first.truth() != null) {
            f.put("truth", first.truth());
        }
        w.putObject("median").put("lo", cut.lo()).put("hi", cut.hi());
        com.fasterxml.jackson.databind.node.ArrayNode runs = w.putArray("perRun");
        perRun.forEach(p -> runs.addObject().put("lo", p.lo()).put("hi", p.hi()));
        w.putObject("criticalPathZeroing").put("lo", zeroing.lo()).put("hi", zeroing.hi());
        w.putObject("pipeline").put("region", body + "[" + detected + "]").put("cutLo", pipelineScore[0])
                .put("cutHi", pipelineScore[1]).put("lo", pipelineLo).put("hi", pipelineHi);
        root.putObject("actual").put("imbalancedSec", imbalanced).put("balancedSec", balanced)
                .put("speedup", actualSpeedup).put("iqrSec", Math.max(iqr(imbalancedSec), iqr(balancedSec)))
                .put("iqrImbalancedSec", iqr(imbalancedSec)).put("iqrBalancedSec", iqr(balancedSec))
                .put("runs", imbalancedSec.size());
        root.putObject("predictionError").put("lo", error[0]).put("hi", error[1]);
        root.putObject("pipelinePredictionError").put("lo", pipelineError[0]).put("hi", pipelineError[1]);
    }

    private static double clamp(double share) {
        return Math.max(0, Math.min(1, share));
    }

    private static String percent(double f) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * f);
    }

    private static String truth(Double t) {
        return t == null ? "" : String.format(Locale.ROOT, "  truth %.3f%%", 100 * t);
    }

    private static String seconds(List<Double> values) {
        return Arrays.toString(values.stream().map(v -> String.format(Locale.ROOT, "%.3f", v)).toArray());
    }
}
