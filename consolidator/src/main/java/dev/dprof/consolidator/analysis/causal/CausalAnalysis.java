package dev.dprof.consolidator.analysis.causal;

import dev.dprof.consolidator.analysis.stats.Rates;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.HandoffRegions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the causal analyses share: naming what to cut ({@code region} or {@code region[instance]}),
 * the replay under bounds and, for simulated runs, under the truth, and turning gains in reference
 * ticks into unit-free shares.
 */
final class CausalAnalysis {
    private CausalAnalysis() {
    }

    /** The bounds, and the truth when the run's clocks were simulated. */
    record Replays(CausalReplay.Result bounds, CausalReplay.Result truth) {
    }

    static Replays replay(Profile profile, List<Cut> cuts, int from, int to, CausalFacts facts)
            throws ProfileException {
        return replay(profile, cuts, from, to, -1, facts);
    }

    /** The same, with the latency of region {@code latency}'s instances (-1: none). */
    static Replays replay(Profile profile, List<Cut> cuts, int from, int to, int latency, CausalFacts facts)
            throws ProfileException {
        CausalReplay.Result bounds = CausalReplay.run(profile, cuts, from, to, latency, CausalReplay.View.BOUNDS, facts);
        CausalReplay.Result truth = profile.info().truth() && bounds.noBound() == null
                ? CausalReplay.run(profile, cuts, from, to, latency, CausalReplay.View.TRUTH, facts) : null;
        return new Replays(bounds, truth);
    }

    /** A region by name, or -1 for null. */
    static int regionIndex(ProfileInfo info, String name) throws ProfileException {
        if (name == null) {
            return -1;
        }
        return info.regions().stream().filter(r -> r.name().equals(name)).mapToInt(ProfileInfo.Region::index)
                .findFirst().orElseThrow(() -> new ProfileException("no region named '" + name + "' in the profile"
                        + " (regions: " + info.regions().stream().map(ProfileInfo.Region::name).toList() + ")"));
    }

    /** {@code name} (every instance) or {@code name[instance]} (one dynamic instance id). */
    static Cut cut(ProfileInfo info, String spec, double fraction) throws ProfileException {
        String name = spec;
        long instance = Cut.ANY;
        int bracket = spec.indexOf('[');
        if (bracket > 0 && spec.endsWith("]")) {
            name = spec.substring(0, bracket);
            try {
                instance = Long.parseLong(spec.substring(bracket + 1, spec.length() - 1).trim());
            } catch (NumberFormatException e) {
                throw new ProfileException("'" + spec + "': the instance in [ ] must be an integer");
            }
        }
        return new Cut(spec, regionIndex(info, name), instance, fraction);
    }

    /**
     * Every region, and every dynamic instance of those that have them, cut by {@code fraction};
     * not handoff sites, whose events are instants: no time of a thread lies inside them.
     */
    static List<Cut> everyRegion(ProfileInfo info, CausalFacts facts, double fraction) {
        List<Cut> cuts = new ArrayList<>();
        Map<Integer, Set<Long>> instances = facts.instances();
        for (ProfileInfo.Region r : info.regions()) {
            if (HandoffRegions.REGION_KIND.equals(r.kind())) {
                continue;
            }
            cuts.add(new Cut(r.name(), r.index(), Cut.ANY, fraction));
            for (long i : instances.getOrDefault(r.index(), Set.of())) {
                cuts.add(new Cut(r.name() + "[" + i + "]", r.index(), i, fraction));
            }
        }
        return cuts;
    }

    /** {@code gain / span} as sound bounds of a share, from bounds on both. */
    static double shareLo(long gainLo, long spanLo, long spanHi) {
        return gainLo / (double) (gainLo >= 0 ? Math.max(1, spanHi) : Math.max(1, spanLo));
    }

    static double shareHi(long gainHi, long spanLo, long spanHi) {
        return gainHi / (double) (gainHi >= 0 ? Math.max(1, spanLo) : Math.max(1, spanHi));
    }

    /** The truth of a share: the truth replay's gain (its rounding midpoint) over its span. */
    static Double truthShare(CausalReplay.Result truth, long gainLo, long gainHi) {
        return truth == null ? null : (gainLo + gainHi) / 2.0 / Math.max(1, truth.spanLo());
    }

    /** The worst calibration quality among the processes. */
    static String quality(ProfileInfo info) {
        return info.processes().stream().map(ProfileInfo.Process::quality).reduce(Rates::worse).orElse("REFERENCE");
    }
}
