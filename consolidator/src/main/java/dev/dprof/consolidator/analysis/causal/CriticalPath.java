package dev.dprof.consolidator.analysis.causal;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The critical path of a profile (Hollingsworth §2.1): the longest path through the time-weighted
 * DAG from the first event to the last, and per region the share of it the region holds
 * (inclusive: a region's nested regions count in it too, so shares may add up to more than 1);
 * what is not in any region is "outside regions", what crosses threads "communication" — or,
 * through a handoff between threads of one process, the handoff's site, a region of kind
 * {@code handoff} (so the path names each queue, pool or future it waited on). And
 * critical-path zeroing (Hollingsworth §3): per region, the longest path recomputed with that
 * region's weights set to zero — its new length and the share it saves — not a subtraction of the
 * region's share. All as sound [lo, hi]; the construction and why it is sound are in
 * {@link CausalReplay}.
 *
 * <p>Over a span ({@code from}, {@code to} as in {@link WhatIf}): the longest path ending at the
 * span's end (the last exit of {@code to}, or the last event), cut at its start (the earliest first
 * enter of {@code from}): time before the start is in no bucket, and the shares are of the span.
 */
public final class CriticalPath {
    /** The share of the path in one region (or communication / outside regions). */
    public record Share(String name, double lo, double hi, long ticksLo, long ticksHi, Double truth) {
    }

    /** Zeroing one region (or one dynamic instance of it). */
    public record Zeroing(String region, double savedLo, double savedHi, long newLengthTicksLo,
                          long newLengthTicksHi, Double truth) {
    }

    /**
     * The path, its shares and zeroing.
     *
     * @param handoffsOnPathLo handoff edges the path crosses, bounds (the min and max over the
     *                         candidates wherever the path is ambiguous at a join)
     * @param incomplete       what the recorded picture lacks, or null ({@link Incomplete})
     * @param noBound          null when computed; else why the path has no bound (a process without a rate
     *                         bound has events in the profile), every figure then empty or 0
     * @param notReplayed      processes without a rate bound and without events in the profile, which the
     *                         replay runs without, one line each
     */
    public record Result(long lengthTicksLo, long lengthTicksHi, Long lengthTicksTruth, List<Share> shares,
                         List<Zeroing> zeroing, String quality, String assumption, double referenceTickHz,
                         long handoffsOnPathLo, long handoffsOnPathHi, Double handoffsOnPathTruth,
                         Incomplete incomplete, String from, String to, String noBound, List<String> notReplayed) {
        /** This result; for a caller that needs figures, why they have none as the error. */
        public Result bounded() throws ProfileException {
            if (noBound != null) {
                throw new ProfileException(noBound);
            }
            return this;
        }
    }

    public static final String COMMUNICATION = "(communication)";
    public static final String OUTSIDE = "(outside regions)";

    private CriticalPath() {
    }

    /** Over the whole profile, from its first event to its last. */
    public static Result compute(Profile profile) throws ProfileException {
        return compute(profile, null, null);
    }

    /**
     * Over the span from the earliest first enter of region {@code from} (null: the profile's first
     * event) to the last exit of region {@code to} (null: the last event).
     */
    public static Result compute(Profile profile, String from, String to) throws ProfileException {
        ProfileInfo info = profile.info();
        CausalFacts facts = CausalFacts.of(profile);
        List<Cut> cuts = CausalAnalysis.everyRegion(info, facts, 1.0);
        CausalAnalysis.Replays replays = CausalAnalysis.replay(profile, cuts, CausalAnalysis.regionIndex(info, from),
                CausalAnalysis.regionIndex(info, to), facts);
        CausalReplay.Result b = replays.bounds();
        CausalReplay.Result t = replays.truth();
        if (b.noBound() != null) {
            return new Result(0, 0, null, List.of(), List.of(), CausalAnalysis.quality(info), info.assumption(),
                    info.referenceTickHz(), 0, 0, null, null, from, to, b.noBound(), List.of());
        }
        List<Share> shares = new ArrayList<>();
        for (int bucket = 0; bucket < b.threadOutside(); bucket++) {
            String name = bucket == b.communication() ? COMMUNICATION
                    : bucket == b.outside() ? OUTSIDE : info.regions().get(bucket).name();
            Double truth = t == null ? null : (t.cpLo()[bucket] + t.cpHi()[bucket]) / 2.0 / Math.max(1, t.pathLo());
            shares.add(new Share(name, CausalAnalysis.shareLo(b.cpLo()[bucket], b.pathLo(), b.pathHi()),
                    Math.min(1, CausalAnalysis.shareHi(b.cpHi()[bucket], b.pathLo(), b.pathHi())),
                    b.cpLo()[bucket], b.cpHi()[bucket], truth));
        }
        shares.sort(Comparator.comparingDouble(Share::hi).reversed());
        List<Zeroing> zeroing = new ArrayList<>();
        for (int k = 0; k < cuts.size(); k++) {
            CausalReplay.Gain g = b.gains()[k];
            Double truth = t == null ? null : CausalAnalysis.truthShare(t, t.gains()[k].lo(), t.gains()[k].hi());
            zeroing.add(new Zeroing(cuts.get(k).label(), CausalAnalysis.shareLo(g.lo(), b.spanLo(), b.spanHi()),
                    CausalAnalysis.shareHi(g.hi(), b.spanLo(), b.spanHi()), Math.max(0, b.spanLo() - g.hi()),
                    b.spanHi() - g.lo(), truth));
        }
        zeroing.sort(Comparator.comparingDouble(Zeroing::savedLo).thenComparingDouble(Zeroing::savedHi).reversed());
        return new Result(b.pathLo(), b.pathHi(), t == null ? null : t.pathLo(), shares, zeroing,
                CausalAnalysis.quality(info), info.assumption(), info.referenceTickHz(), b.hopsLo(), b.hopsHi(),
                t == null ? null : (t.hopsLo() + t.hopsHi()) / 2.0, Incomplete.of(info, b, facts.handoffs()), from, to,
                null, b.notReplayed());
    }
}
