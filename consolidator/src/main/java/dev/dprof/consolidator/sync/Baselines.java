package dev.dprof.consolidator.sync;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One run under every synchronization: the FreeZer profile and its point re-timings, side by side. */
public final class Baselines {
    private Baselines() {
    }

    /**
     * The run under every method, what each point method's clocks rest on (per domain pair, by
     * method), what the controlled logical clock did to local timings, the fastest matched message's
     * latency, and the minimum latency {@code λ} that fast sends are counted against (that latency, or
     * a network floor below it), with where {@code λ} comes from.
     */
    public record Derived(Map<String, Profile> profiles, Map<String, List<ClockBasis>> basis, PointSync.Correction clc,
                          long fastestMessageTicks, long minimumLatencyTicks, String minimumLatencySource) {
        /**
         * The same with {@code λ} = the network's minimum transmission time (DProf §6: a fast send is
         * closer to its receive than that), when it lies below the fastest message, as a floor must.
         */
        public Derived withNetworkFloor(long floorTicks, String source) {
            return floorTicks < fastestMessageTicks
                    ? new Derived(profiles, basis, clc, fastestMessageTicks, floorTicks, source) : this;
        }
    }

    /** {@code freezer} first, then each {@link SyncMethod}'s profile, written under {@code dir}. */
    public static Derived derive(Profile freezer, Path dir) throws ProfileException, IOException {
        Map<String, Profile> all = new LinkedHashMap<>();
        Map<String, List<ClockBasis>> basis = new LinkedHashMap<>();
        all.put("freezer", freezer);
        PointSync.Correction clc = null;
        for (SyncMethod m : SyncMethod.values()) {
            Path out = dir.resolve(m.label());
            if (m == SyncMethod.CLC) {
                clc = PointSync.correct(freezer, out);
                basis.put(m.label(), clc.basis());
            } else {
                basis.put(m.label(), PointSync.derive(freezer, m, out).basis());
            }
            all.put(m.label(), Profile.open(out));
        }
        long fastest = SyncQuality.minimumLatencyTicks(freezer);
        return new Derived(all, basis, clc, fastest, fastest, freezer.info().truth()
                ? "the fastest matched message's true latency" : "the fastest matched message's proven floor (FreeZer)");
    }

    /** {@link SyncQuality} of each method, against the derived run's {@code λ}. */
    public static List<SyncQuality.Figures> quality(Derived derived) throws ProfileException {
        return quality(derived.profiles(), derived.minimumLatencyTicks());
    }

    /** {@link SyncQuality} of each, against {@code lambda} (reference ticks). */
    public static List<SyncQuality.Figures> quality(Map<String, Profile> profiles, long lambda) throws ProfileException {
        List<SyncQuality.Figures> figures = new ArrayList<>();
        for (Map.Entry<String, Profile> p : profiles.entrySet()) {
            figures.add(SyncQuality.measure(p.getValue(), p.getKey(), lambda));
        }
        return figures;
    }
}
