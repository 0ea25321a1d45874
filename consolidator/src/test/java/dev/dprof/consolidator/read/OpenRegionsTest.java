package dev.dprof.consolidator.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.consolidator.stats.RegionStats;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.format.EventCodes;
import dev.dprof.format.RegionInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dprof stats}: a region still running when its process's recording ended is counted as open
 * (once, for a recursive entry), with how long it had run by the process's last event, and has no
 * duration; a closed instance of the same region still counts as before.
 */
class OpenRegionsTest {
    private static long[] event(long tick, int kind, int region) {
        return new long[] {tick, EventCodes.header(kind, region)};
    }

    @Test
    void aRegionStillRunningAtTheEndIsOpenNotZero(@TempDir Path tmp) throws Exception {
        try (TestQueue q = new TestQueue(tmp.resolve("p1"))) {
            q.region(new RegionInfo(1, "main.loop", "plain", "yaml", "dprof.yaml:1", OptionalLong.empty()));
            q.region(new RegionInfo(2, "step", "plain", "yaml", "dprof.yaml:2", OptionalLong.empty()));
            q.thread(1, "main");
            // main.loop entered twice (recursively) and never left; step done twice, then entered once more
            q.batch(1, List.of(event(1_000, EventCodes.ENTER, 1), event(2_000, EventCodes.ENTER, 1),
                    event(3_000, EventCodes.ENTER, 2), event(4_000, EventCodes.EXIT, 2),
                    event(5_000, EventCodes.ENTER, 2), event(7_000, EventCodes.EXIT, 2),
                    event(9_000, EventCodes.ENTER, 2), event(1_001_000, EventCodes.PROGRESS, 0)));
            q.end();
        }
        RunStatistics stats = RunStatistics.of(List.of(tmp.resolve("p1")));
        Map<String, RegionStats> byName = stats.regions().stream()
                .collect(Collectors.toMap(RegionStats::name, r -> r));
        RegionStats loop = byName.get("main.loop");
        assertEquals(0, loop.count());
        assertEquals(1, loop.open(), "the recursive entry is the outermost's");
        assertEquals(1_000_000, loop.openAtLeastNs(), 1e-6, "from its enter to the last event, at 1 GHz");
        RegionStats step = byName.get("step");
        assertEquals(2, step.count());
        assertEquals(3_000, step.totalNs(), 1e-6);
        assertEquals(1, step.open());
        assertEquals(992_000, step.openAtLeastNs(), 1e-6);
        assertEquals(3, stats.openRegions(), "every open frame, as before");
    }
}
