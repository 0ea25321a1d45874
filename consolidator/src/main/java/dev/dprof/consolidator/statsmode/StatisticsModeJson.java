package dev.dprof.consolidator.statsmode;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.consolidator.json.ResultJson;
import java.util.Map;

/**
 * The JSON form of a {@link StatisticsModeRun}'s figures: per region the count, every duration as a
 * bound {@code {"lo", "hi"}} in the scale's unit, the quantiles with the histogram's relative error, and
 * the probe-cost compensation as an estimate beside them ({@code lessProbeCost}).
 */
public final class StatisticsModeJson {
    private StatisticsModeJson() {
    }

    public static ObjectNode of(StatisticsModeRun run, Scale scale) {
        ObjectNode root = ResultJson.object();
        root.put("processes", run.processes());
        root.put("lostEvents", run.lostEvents());
        root.put("lostEventsExact", run.lostExact());
        root.put("histogramRelativeError", BoundedFigures.HISTOGRAM_RELATIVE_ERROR);
        ArrayNode regions = root.putArray("regions");
        for (StatisticsModeRun.RegionResult r : run.regions(scale)) {
            ObjectNode n = regions.addObject().put("name", r.name()).put("kind", r.kind());
            figures(n, r.all());
            n.put("open", r.open()).put("unexited", r.unexited()).put("unpairedExits", r.unpairedExits()).put("points", r.points())
                    .put("leftOut", r.leftOut()).put("intervals", r.intervals());
            ArrayNode callers = n.putArray("callers");
            r.callers().forEach((c, f) -> figures(callers.addObject().put("caller", c), f));
            ArrayNode instances = n.putArray("instances");
            r.instances().forEach((i, f) -> figures(instances.addObject().put("instance", i), f));
            ArrayNode peers = n.putArray("peers");
            for (Map.Entry<String, StatisticsModeRun.Peer> p : r.peers().entrySet()) {
                figures(peers.addObject().put("peer", p.getKey()).put("sends", p.getValue().sends())
                        .put("receives", p.getValue().receives()), p.getValue().figures());
            }
        }
        return ResultJson.finite(root);
    }

    private static void figures(ObjectNode n, BoundedFigures f) {
        n.put("count", f.count());
        bound(n, "total", f.total());
        bound(n, "mean", f.mean());
        bound(n, "min", f.min());
        bound(n, "max", f.max());
        ArrayNode q = n.putArray("quantiles");
        for (BoundedFigures.Quantile quantile : f.quantiles()) {
            ObjectNode o = q.addObject().put("q", quantile.q());
            bound(o, "value", quantile.value());
        }
        bound(n, "probeCost", f.probeCost());
        bound(n, "lessProbeCost", f.compensated());
    }

    private static void bound(ObjectNode n, String name, Bound b) {
        ResultJson.bound(n, name, b.lo(), b.hi());
    }
}
