package dev.dprof.consolidator.stats;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.statsmode.StatisticsModeJson;

/**
 * The JSON form of {@link RunStatistics}, the one {@code dprof stats RUN_DIR… --json FILE} writes:
 * per region count and times in ns at each process's nominal rate (not bounds), what was lost
 * ({@code lostEventsExact} false when the count is a lower bound), the processes left out
 * ({@code leftOut[]}, as in {@code profile.json}), and the weaving report in
 * {@code profile.json}'s form; with processes in statistics mode, their figures as bounds
 * ({@code statisticsMode}, {@link StatisticsModeJson}).
 */
public final class RunStatisticsJson {
    private RunStatisticsJson() {
    }

    public static ObjectNode of(RunStatistics stats) {
        ObjectNode root = ResultJson.object();
        ArrayNode regions = root.putArray("regions");
        for (RegionStats r : stats.regions()) {
            regions.addObject().put("name", r.name()).put("count", r.count()).put("totalNs", r.totalNs())
                    .put("meanNs", r.meanNs()).put("minNs", r.minNs()).put("maxNs", r.maxNs()).put("open", r.open())
                    .put("openAtLeastNs", r.openAtLeastNs());
        }
        root.put("lostEvents", stats.lostEvents());
        root.put("lostEventsExact", stats.lostExact());
        root.put("events", stats.events());
        root.put("processes", stats.processes());
        root.set("leftOut", ResultJson.tree(stats.leftOut().stream().map(ProfileInfo.LeftOut::of).toList()));
        root.put("openRegions", stats.openRegions());
        root.set("weaving", ResultJson.tree(stats.weaving().toInfo()));
        root.put("unit", "ns at the nominal tick rate");
        if (stats.statisticsMode().any()) {
            root.set("statisticsMode", StatisticsModeJson.of(stats.statisticsMode(), stats.statisticsMode().nominal()));
        }
        return ResultJson.finite(root);
    }
}
