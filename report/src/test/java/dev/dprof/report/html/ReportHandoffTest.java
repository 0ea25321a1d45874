package dev.dprof.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every section of the report on a profile with handoff events (instants in regions of kind
 * {@code handoff}) and virtual-thread mount events (instants without a region) between its regions:
 * nothing breaks, the statistics count the regions as without them, the critical path names the
 * queue it crossed and the path trace hops through it.
 * <pre>
 * t0  ENTER body 0, EXIT body 100, PUT q 100, VT_MOUNT 101, VT_UNMOUNT 102, BARRIER_ENTER 103, BARRIER_EXIT 200
 * t1  ENTER wait 0, TAKE q 105, EXIT wait 105, ENTER body 105, EXIT body 190, BARRIER_ENTER 190, BARRIER_EXIT 200
 * </pre>
 */
class ReportHandoffTest {
    @Test
    void aProfileWithHandoffsAndVirtualThreadEventsGivesEverySection(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int body = p.region("body");
        int wait = p.region("wait");
        int barrier = p.region("barrier", "barrier");
        String site = HandoffRegions.siteName(HandoffRegions.Kind.QUEUE, "LinkedBlockingQueue", "Server.<init>:3");
        int queue = p.region(site, HandoffRegions.REGION_KIND);
        long q = HandoffRegions.FIRST_OBJECT;
        point(p, t0, EventKind.ENTER, body, 0, 0, 0);
        point(p, t1, EventKind.ENTER, wait, 0, 0, 0);
        point(p, t0, EventKind.EXIT, body, 100, 0, 0);
        point(p, t0, EventKind.HANDOFF_PUT, queue, 100, q, 1);
        point(p, t0, EventKind.VT_MOUNT, -1, 101, 5000, 0);
        point(p, t0, EventKind.VT_UNMOUNT, -1, 102, 5000, 0);
        point(p, t0, EventKind.BARRIER_ENTER, barrier, 103, 1, 2);
        point(p, t1, EventKind.HANDOFF_TAKE, queue, 105, q, 1);
        point(p, t1, EventKind.EXIT, wait, 105, 0, 0);
        point(p, t1, EventKind.ENTER, body, 105, 0, 0);
        point(p, t1, EventKind.EXIT, body, 190, 0, 0);
        point(p, t1, EventKind.BARRIER_ENTER, barrier, 190, 1, 2);
        point(p, t0, EventKind.BARRIER_EXIT, barrier, 200, 1, 2);
        point(p, t1, EventKind.BARRIER_EXIT, barrier, 200, 1, 2);
        var profile = p.write();

        ProfileStatistics.Result stats = ProfileStatistics.compute(profile);
        ProfileStatistics.RegionFigures bodyFigures = stats.regions().stream().filter(f -> f.name().equals("body"))
                .findFirst().orElseThrow();
        assertEquals(2, bodyFigures.count());
        assertEquals(0, stats.totals().unpairedExits());

        ObjectNode data = ReportData.build(profile, new ReportData.Options("body", "barrier", null, null, 4, 10, 10,
                false), dir.resolve("scratch"));
        for (String section : List.of("summary", "statistics", "straggler", "whatif", "criticalPath", "timeline")) {
            assertTrue(data.has(section), section);
        }
        JsonNode path = data.get("criticalPath");
        List<String> onPath = new ArrayList<>();
        path.get("shares").forEach(s -> {
            if (s.get("hi").asDouble() > 0) {
                onPath.add(s.get("name").asText());
            }
        });
        assertTrue(onPath.contains(site), onPath.toString());
        assertEquals(1, path.get("handoffsOnPath").get("lo").asLong());
        assertTrue(path.get("incomplete").isNull());
        // the trace: t0 up to the put, t1 from the take to its barrier enter, t0 from the barrier exit
        JsonNode trace = path.get("trace");
        assertEquals("[[0,0.0,100.0],[1,105.0,190.0],[0,200.0,200.0]]", trace.toString());
    }

    private static void point(TinyProfile p, int stream, EventKind kind, int region, long t, long a, long b) {
        p.event(stream, kind, region, t, t, t, t, a, b);
    }
}
