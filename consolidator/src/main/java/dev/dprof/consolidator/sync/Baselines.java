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

    /** The run under every method, and what the controlled logical clock did to local timings. */
    public record Derived(Map<String, Profile> profiles, PointSync.Correction clc) {
    }

    /** {@code freezer} first, then each {@link SyncMethod}'s profile, written under {@code dir}. */
    public static Derived derive(Profile freezer, Path dir) throws ProfileException, IOException {
        Map<String, Profile> all = new LinkedHashMap<>();
        all.put("freezer", freezer);
        PointSync.Correction clc = null;
        for (SyncMethod m : SyncMethod.values()) {
            Path out = dir.resolve(m.label());
            if (m == SyncMethod.CLC) {
                clc = PointSync.correct(freezer, out);
            } else {
                PointSync.derive(freezer, m, out);
            }
            all.put(m.label(), Profile.open(out));
        }
        return new Derived(all, clc);
    }

    /** {@link SyncQuality} of each, against the minimum latency of the FreeZer profile's run. */
    public static List<SyncQuality.Figures> quality(Map<String, Profile> profiles) throws ProfileException {
        long lambda = SyncQuality.minimumLatencyTicks(profiles.get("freezer"));
        List<SyncQuality.Figures> figures = new ArrayList<>();
        for (Map.Entry<String, Profile> p : profiles.entrySet()) {
            figures.add(SyncQuality.measure(p.getValue(), p.getKey(), lambda));
        }
        return figures;
    }
}
