package dev.dprof.consolidator.sync;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;
import java.util.List;
import java.util.Map;

/**
 * The JSON form of a run under every synchronization ({@link Baselines.Derived} and its
 * {@link SyncQuality.Figures}), the one {@code dprof analyze PROFILE sync-quality --json} prints and
 * the report holds as {@code sync}: the minimum latency fast sends count against (ns, and where it
 * comes from), per method its figures, what the controlled logical clock did to local timings
 * ({@code clc}) and what each point method's clocks rest on ({@code basis}); the demo's JSON takes
 * the last two from here as well.
 */
public final class SyncQualityJson {
    private SyncQualityJson() {
    }

    /** {@code figures}: {@link Baselines#quality} of {@code derived}. */
    public static ObjectNode of(Baselines.Derived derived, List<SyncQuality.Figures> figures) {
        double hz = derived.profiles().get("freezer").info().referenceTickHz();
        ObjectNode root = ResultJson.object().put("minimumLatencyNs", derived.minimumLatencyTicks() * 1e9 / hz)
                .put("minimumLatencySource", derived.minimumLatencySource());
        ArrayNode methods = root.putArray("methods");
        for (SyncQuality.Figures f : figures) {
            ObjectNode n = methods.addObject().put("method", f.method()).put("messages", f.messages())
                    .put("fastSends", f.fastSends()).put("fastSendsPercent", f.fastSendsPercent())
                    .put("reversed", f.reversed()).put("barrierExits", f.barrierExits())
                    .put("barrierInversions", f.barrierInversions()).put("inversions", f.inversions());
            if (f.errorMeanNs() != null) {
                n.putObject("errorNs").put("mean", f.errorMeanNs()).put("p99", f.errorP99Ns()).put("max", f.errorMaxNs());
            }
        }
        root.set("clc", clc(derived.clc()));
        root.set("basis", basis(derived.basis()));
        return ResultJson.finite(root);
    }

    /** What the controlled logical clock did to process-local timings (Becker §6.2), in ns and shares. */
    public static ObjectNode clc(PointSync.Correction clc) {
        IntervalDeviation d = clc.deviation();
        ObjectNode n = ResultJson.object().put("minimumLatencyWithinNs", clc.minimumLatencyWithinNs())
                .put("minimumLatencyBetweenNs", clc.minimumLatencyBetweenNs()).put("intervals", d.intervals())
                .put("positionMaxRelative", d.positionMaxRelative())
                .put("positionMaxAbsoluteNs", d.positionMaxAbsoluteTicks() * 1e9 / clc.info().referenceTickHz())
                .put("distanceWeightedMean", d.distanceWeightedMean());
        ArrayNode above = n.putArray("distanceAbove");
        for (int i = 0; i < d.thresholds().length; i++) {
            above.addObject().put("threshold", d.thresholds()[i]).put("intervals", d.intervalsAbove()[i])
                    .put("time", d.timeAbove()[i]);
        }
        return ResultJson.finite(n);
    }

    /** Per point method, what its line for each domain pair rests on ({@link ClockBasis}). */
    public static ObjectNode basis(Map<String, List<ClockBasis>> basis) {
        ObjectNode n = ResultJson.object();
        for (Map.Entry<String, List<ClockBasis>> m : basis.entrySet()) {
            ArrayNode pairs = n.putArray(m.getKey());
            for (ClockBasis b : m.getValue()) {
                pairs.addObject().put("domain", b.domain()).put("parent", b.parent()).put("pair", b.pair())
                        .put("calibrationExchanges", b.exchanges()).put("messagesUp", b.messagesUp())
                        .put("messagesDown", b.messagesDown()).put("pointsUp", b.pointsUp())
                        .put("pointsDown", b.pointsDown()).put("fewPoints", b.fewPoints()).put("fit", b.fit());
            }
        }
        return n;
    }
}
