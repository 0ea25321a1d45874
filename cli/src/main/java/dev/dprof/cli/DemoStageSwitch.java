package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.causal.CriticalPath;
import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The demo's check of dCOZ (DProf §5.2) on a service pipeline ({@code dprof demo --app service}):
 * inside the server a request crosses threads through queues, and the serial journal stage is the
 * bottleneck. The fast runs remove a known fraction {@code c} of every sync; dCOZ predicts, from
 * each slow run's profile, how much shorter the span of the fixed number of requests gets when the
 * sync region is faster by {@code c}; the measured gain is {@code 1 − T_fast/T_slow} over the
 * medians of the alternating runs' spans. The prediction can only see the sync stage's effect on
 * the clients if the profile joins the server's threads at their queue handoffs (docs/FORMAT.md,
 * kinds 15 and 16): without them the chain from a sync to its answer breaks at the reply queue.
 *
 * <p>Acceptance, printed as PASS or FAIL: the predicted interval contains the measured gain or
 * lies within 5% of it (its distance to the measured gain at most 5% of that gain), and it is
 * tight: {@code hi − lo ≤ 0.25 ×} the measured gain. The prediction error is the paper's, as for
 * the straggler ({@link DemoValidation#predictionError}), the slow run as the imbalanced one.
 * The criteria are public for the same check on systems the demo does not run (ZooKeeperIT).
 */
public final class DemoStageSwitch {
    /** The journal's sync, the region the fast runs make faster. */
    static final String REGION = "service.sync";
    /** The clients' requests: the span of the run's fixed number of them, from the first one's start to the last one's end. */
    static final String SPAN = "service.call";
    /** How far outside the prediction the measured gain may lie, as a share of that gain. */
    static final double NEAR = 0.05;
    /** How wide the prediction may be, as a share of the measured gain. */
    static final double TIGHT = 0.25;

    private DemoStageSwitch() {
    }

    /** One acceptance criterion's verdict and the line that says it. */
    public record Verdict(boolean pass, String line) {
    }

    /**
     * Predicts from every slow run, compares with the measured spans, prints and adds
     * {@code stageSwitch} to {@code root}.
     *
     * @param slowRuns the slow runs' profiles, the demo's profile first
     * @param speedup  the fraction of each sync the fast runs remove
     */
    static void report(List<Profile> slowRuns, double speedup, List<Double> slowSec, List<Double> fastSec,
                       ObjectNode root) throws ProfileException {
        List<WhatIf.Prediction> perRun = new ArrayList<>();
        String assumption = null;
        for (Profile run : slowRuns) {
            WhatIf.Result r = WhatIf.predict(run, REGION, List.of(speedup), SPAN, SPAN);
            perRun.add(r.boundedPredictions().get(0));
            assumption = r.assumption();
        }
        WhatIf.Prediction median = DemoValidation.medianPrediction(perRun);
        Profile medianRun = slowRuns.get(perRun.indexOf(median));
        CriticalPath.Result path = CriticalPath.compute(medianRun, SPAN, SPAN).bounded();
        long[] handoffs = handoffsOnPath(path);
        CriticalPath.Share syncShare = path.shares().stream().filter(x -> x.name().equals(REGION)).findFirst()
                .orElseThrow(() -> new ProfileException("the profile has no region " + REGION));

        double slow = DemoValidation.median(slowSec);
        double fast = DemoValidation.median(fastSec);
        double measured = 1 - fast / slow;
        double[] error = DemoValidation.predictionError(slow, fast, median.lo(), median.hi());

        System.out.printf(Locale.ROOT, "%nwhat-if (dCOZ) of the service's journal: %s faster by %s, span %s → %s, %s%n",
                REGION, percent(speedup), SPAN, SPAN, assumption);
        System.out.printf(Locale.ROOT, "  %-44s %s; median [%7.3f%%, %7.3f%%]%s%n", "predicted speedup in each slow run",
                String.join(" ", perRun.stream().map(p -> String.format(Locale.ROOT, "[%.3f%%, %.3f%%]", 100 * p.lo(),
                        100 * p.hi())).toList()), 100 * median.lo(), 100 * median.hi(), truth(median.truth()));
        System.out.printf(Locale.ROOT, "actual: slow %.3f s, fast %.3f s (medians of %d and %d runs; spans %s and %s):"
                + " speedup %.3f%%%n", slow, fast, slowSec.size(), fastSec.size(), seconds(slowSec), seconds(fastSec),
                100 * measured);
        System.out.printf(Locale.ROOT, "prediction error [%.3f%%, %.3f%%]%n", 100 * error[0], 100 * error[1]);
        System.out.printf(Locale.ROOT, "%s's share of that run's critical path [%.3f%%, %.3f%%]%n", REGION,
                100 * syncShare.lo(), 100 * syncShare.hi());
        System.out.printf(Locale.ROOT, "handoff edges on the slow run's critical path: %s%n",
                handoffs[0] == handoffs[1] ? Long.toString(handoffs[0]) : Arrays.toString(handoffs));
        List<Verdict> verdicts = verdicts(median.lo(), median.hi(), measured);
        verdicts.forEach(v -> System.out.println(v.line()));

        ObjectNode s = root.putObject("stageSwitch");
        s.put("region", REGION).put("speedup", speedup).put("span", SPAN);
        ObjectNode predicted = s.putObject("predicted").put("lo", median.lo()).put("hi", median.hi());
        if (median.truth() != null) {
            predicted.put("truth", median.truth());
        }
        s.put("measured", measured);
        s.putObject("error").put("lo", error[0]).put("hi", error[1]);
        s.put("handoffsOnPath", handoffs[0]);
        s.put("handoffsOnPathHi", handoffs[1]);
        ArrayNode runs = s.putArray("perRun");
        perRun.forEach(p -> runs.addObject().put("lo", p.lo()).put("hi", p.hi()));
        s.putObject("syncShareOfPath").put("lo", syncShare.lo()).put("hi", syncShare.hi());
        s.put("slowSec", slow).put("fastSec", fast).put("runs", slowSec.size());
        s.putObject("accepted").put("containsOrNear", verdicts.get(0).pass()).put("tight", verdicts.get(1).pass());
    }

    /**
     * The handoff edges on the critical path as {@code [lo, hi]}: the path may be ambiguous at a
     * join, and the bounds take every candidate (docs/BOUNDS.md, "What-if and critical path").
     */
    static long[] handoffsOnPath(CriticalPath.Result path) {
        return new long[] {path.handoffsOnPathLo(), path.handoffsOnPathHi()};
    }

    /** The two acceptance criteria on predicted {@code [lo, hi]} against the measured gain. */
    public static List<Verdict> verdicts(double lo, double hi, double measured) {
        double gap = measured < lo ? lo - measured : measured > hi ? measured - hi : 0;
        boolean near = gap <= NEAR * measured;
        boolean tight = hi - lo <= TIGHT * measured;
        String prediction = String.format(Locale.ROOT, "[%.3f%%, %.3f%%]", 100 * lo, 100 * hi);
        return List.of(
                new Verdict(near, String.format(Locale.ROOT, "%s  the prediction %s contains the measured gain %.3f%% or"
                        + " lies within %s of it (%s)", near ? "PASS" : "FAIL", prediction, 100 * measured,
                        percent(NEAR), gap == 0 ? "contains it" : String.format(Locale.ROOT,
                                "%.3f points away, %.1f%% of it", 100 * gap, measured > 0 ? 100 * gap / measured
                                        : Double.POSITIVE_INFINITY))),
                new Verdict(tight, String.format(Locale.ROOT, "%s  the prediction %s is tight: width %.3f points, at most"
                        + " %s of the measured gain (%.3f points)", tight ? "PASS" : "FAIL", prediction, 100 * (hi - lo),
                        percent(TIGHT), 100 * TIGHT * Math.max(0, measured))));
    }

    private static String percent(double f) {
        return String.format(Locale.ROOT, "%.0f%%", 100 * f);
    }

    private static String truth(Double t) {
        return t == null ? "" : String.format(Locale.ROOT, "  truth %.3f%%", 100 * t);
    }

    private static String seconds(List<Double> values) {
        return Arrays.toString(values.stream().map(v -> String.format(Locale.ROOT, "%.3f", v)).toArray());
    }
}
