package dev.dprof.consolidator.analysis.causal;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * dCOZ (DProf §5.2, Alg. 6): the program speedup {@code 1 − T_new/T_old} predicted when every
 * instance of a region gets faster by a fraction, as sound [lo, hi] — over the analysed span, and
 * per progress point as Coz reports throughput (Curtsinger &amp; Berger §3: the change in the
 * period between visits, {@code 1 − P_new/P_old}) and, for a region taken as a transaction (its
 * enter begins it, its exit ends it; Coz's latency progress points), as the change of its mean
 * latency {@code 1 − L_new/L_old}. The propagation and why the bounds hold are in {@link CausalReplay}.
 *
 * <p>The analysed span runs from the first event of every thread (or, with {@code from}, each
 * participating thread's first enter of that region) to its last event (or last exit of {@code to});
 * a thread's first event is never moved, since its creation is not recorded.
 */
public final class WhatIf {
    /** A progress point's throughput speedup. */
    public record ProgressSpeedup(String point, long visits, double lo, double hi, Double truth) {
    }

    /** A transaction region's latency speedup, and the instances' summed duration it is a share of. */
    public record LatencySpeedup(String region, long instances, double lo, double hi, Double truth, long totalTicksLo,
                                 long totalTicksHi) {
    }

    /** One cut's predicted speedup, and the gain in reference ticks behind it; {@code latency} may be null. */
    public record Prediction(String region, double fraction, double lo, double hi, Double truth, long gainTicksLo,
                             long gainTicksHi, List<ProgressSpeedup> progress, LatencySpeedup latency) {
    }

    /**
     * Predictions over one span, what they rest on, and what the recorded picture lacks ({@link Incomplete}, or null).
     *
     * @param noBound     null when predicted; else why no prediction has a bound (a process without a rate
     *                    bound has events in the profile), the span then NaN and the predictions empty
     * @param notReplayed processes without a rate bound and without events in the profile, which the
     *                    replay runs without, one line each
     */
    public record Result(String from, String to, double spanNsLo, double spanNsHi, Double spanNsTruth,
                         List<Prediction> predictions, String quality, String assumption, double referenceTickHz,
                         Incomplete incomplete, String noBound, List<String> notReplayed) {
        /** The predictions; for a caller that needs figures, why they have none as the error. */
        public List<Prediction> boundedPredictions() throws ProfileException {
            if (noBound != null) {
                throw new ProfileException(noBound);
            }
            return predictions;
        }
    }

    private WhatIf() {
    }

    /** The speedup of cutting {@code region} (or {@code region[instance]}) by each of {@code fractions}. */
    public static Result predict(Profile profile, String region, List<Double> fractions, String from, String to)
            throws ProfileException {
        return predict(profile, region, fractions, from, to, null);
    }

    /** The same, with the latency of the instances of region {@code latency} (or null) taken as transactions. */
    public static Result predict(Profile profile, String region, List<Double> fractions, String from, String to,
                                 String latency) throws ProfileException {
        ProfileInfo info = profile.info();
        List<Cut> cuts = new ArrayList<>();
        for (double f : fractions) {
            cuts.add(CausalAnalysis.cut(info, region, f));
        }
        return run(profile, cuts, from, to, CausalAnalysis.regionIndex(info, latency), CausalFacts.of(profile));
    }

    private static LatencySpeedup latency(ProfileInfo info, CausalReplay.Latency bounds, CausalReplay.Latency truth, int k) {
        if (bounds == null || bounds.instances() == 0) {
            return null;
        }
        CausalReplay.Gain g = bounds.gains()[k];
        Double t = truth == null ? null
                : (truth.gains()[k].lo() + truth.gains()[k].hi()) / 2.0 / Math.max(1, truth.totalLo());
        return new LatencySpeedup(info.regions().get(bounds.region()).name(), bounds.instances(),
                CausalAnalysis.shareLo(g.lo(), bounds.totalLo(), bounds.totalHi()),
                CausalAnalysis.shareHi(g.hi(), bounds.totalLo(), bounds.totalHi()), t, bounds.totalLo(), bounds.totalHi());
    }

    /** Every region and dynamic instance cut by {@code fraction}, the largest sure gain first. */
    public static Result rank(Profile profile, double fraction, String from, String to) throws ProfileException {
        CausalFacts facts = CausalFacts.of(profile);
        Result r = run(profile, CausalAnalysis.everyRegion(profile.info(), facts, fraction), from, to, -1, facts);
        List<Prediction> ranked = new ArrayList<>(r.predictions());
        ranked.sort(Comparator.comparingDouble(Prediction::lo).thenComparingDouble(Prediction::hi).reversed());
        return new Result(r.from(), r.to(), r.spanNsLo(), r.spanNsHi(), r.spanNsTruth(), ranked, r.quality(),
                r.assumption(), r.referenceTickHz(), r.incomplete(), r.noBound(), r.notReplayed());
    }

    /**
     * The Coz curves of several regions at once (one replay): each of {@code regions}
     * ({@code name} or {@code name[instance]}) cut by each of {@code fractions}, in that order.
     */
    public static Result curves(Profile profile, List<String> regions, List<Double> fractions, String from, String to)
            throws ProfileException {
        ProfileInfo info = profile.info();
        List<Cut> cuts = new ArrayList<>();
        for (String region : regions) {
            for (double f : fractions) {
                cuts.add(CausalAnalysis.cut(info, region, f));
            }
        }
        return run(profile, cuts, from, to, -1, CausalFacts.of(profile));
    }

    private static Result run(Profile profile, List<Cut> cuts, String from, String to, int latency,
                              CausalFacts facts) throws ProfileException {
        ProfileInfo info = profile.info();
        CausalAnalysis.Replays replays = CausalAnalysis.replay(profile, cuts, CausalAnalysis.regionIndex(info, from),
                CausalAnalysis.regionIndex(info, to), latency, facts);
        CausalReplay.Result b = replays.bounds();
        CausalReplay.Result t = replays.truth();
        if (b.noBound() != null) {
            return new Result(from, to, Double.NaN, Double.NaN, null, List.of(), CausalAnalysis.quality(info),
                    info.assumption(), info.referenceTickHz(), null, b.noBound(), List.of());
        }
        List<Prediction> predictions = new ArrayList<>();
        for (int k = 0; k < cuts.size(); k++) {
            CausalReplay.Gain g = b.gains()[k];
            Double truth = t == null ? null : CausalAnalysis.truthShare(t, t.gains()[k].lo(), t.gains()[k].hi());
            List<ProgressSpeedup> progress = new ArrayList<>();
            for (int p = 0; p < b.progress().size(); p++) {
                CausalReplay.Progress bp = b.progress().get(p);
                CausalReplay.Gain pg = bp.gains()[k];
                Double pt = null;
                if (t != null) {
                    CausalReplay.Progress tp = t.progress().get(p);
                    pt = (tp.gains()[k].lo() + tp.gains()[k].hi()) / 2.0 / Math.max(1, tp.periodLo());
                }
                progress.add(new ProgressSpeedup(info.regions().get(bp.region()).name(), bp.visits(),
                        CausalAnalysis.shareLo(pg.lo(), bp.periodLo(), bp.periodHi()),
                        CausalAnalysis.shareHi(pg.hi(), bp.periodLo(), bp.periodHi()), pt));
            }
            predictions.add(new Prediction(cuts.get(k).label(), cuts.get(k).fraction(),
                    CausalAnalysis.shareLo(g.lo(), b.spanLo(), b.spanHi()),
                    CausalAnalysis.shareHi(g.hi(), b.spanLo(), b.spanHi()), truth, g.lo(), g.hi(), progress,
                    latency(info, b.latency(), t == null ? null : t.latency(), k)));
        }
        return new Result(from, to, info.ticksToNanos(b.spanLo()), info.ticksToNanos(b.spanHi()),
                t == null ? null : info.ticksToNanos(t.spanLo()), predictions, CausalAnalysis.quality(info),
                info.assumption(), info.referenceTickHz(), Incomplete.of(info, b, facts.handoffs()), null,
                b.notReplayed());
    }
}
