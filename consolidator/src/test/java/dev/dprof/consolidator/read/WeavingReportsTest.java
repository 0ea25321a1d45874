package dev.dprof.consolidator.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.stats.RegionStats;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.WeavingSummary;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offline tools read what each agent said about the YAML's regions: an unmatched region once,
 * with the processes it holds for; a killed process as unknown; a name of two kinds kept apart.
 */
class WeavingReportsTest {
    private static final WeavingSummary.Region TYPO = new WeavingSummary.Region("ack", "dprof.yaml:7",
            "org.x.quorum.Leeder", "processAck", "", 0, WeavingSummary.Reason.NO_CLASS, "org.x.quorum.Leader", "");
    private static final WeavingSummary.Region WOVEN = new WeavingSummary.Region("compute", "dprof.yaml:3",
            "org.x.Worker", "compute", "", 1, WeavingSummary.Reason.MATCHED, "", "");

    @Test
    void unmatchedRegionsAreNamedOnceWithTheirProcessesAndAKilledProcessIsUnknown(@TempDir Path tmp) throws Exception {
        for (int pid = 1; pid <= 2; pid++) {
            try (TestQueue q = new TestQueue(tmp.resolve("p" + pid), "17", true, pid)) {
                q.weaving(new WeavingSummary(2, 1, 1, List.of(WOVEN, TYPO)));
                q.end();
            }
        }
        try (TestQueue q = new TestQueue(tmp.resolve("p3"), "17", true, 3)) {
            q.thread(1, "main"); // killed: neither a weaving summary nor an end
        }
        try (TestQueue q = new TestQueue(tmp.resolve("p4"), "17", true, 4)) {
            q.end(); // an agent older than the record
        }
        RunStatistics stats = RunStatistics.of(List.of(tmp.resolve("p1"), tmp.resolve("p2"), tmp.resolve("p3"),
                tmp.resolve("p4")));
        assertEquals(List.of(
                "region 'ack' (dprof.yaml:7) org.x.quorum.Leeder#processAck: no class by that name was loaded"
                        + " (nearest: org.x.quorum.Leader) [2 of 4 processes]",
                "host-3: which YAML regions matched is unknown (the process did not end normally)",
                "host-4: which YAML regions matched is unknown (its agent did not record it)"),
                stats.weaving().lines());
        ProfileInfo.UnmatchedRegion json = stats.weaving().toInfo().unmatched().get(0);
        assertEquals("NO_CLASS", json.reason());
        assertEquals("org.x.quorum.Leader", json.nearest());
        assertEquals(List.of("host-1", "host-2"), json.processes());
    }

    @Test
    void aRegionNameOfTwoKindsIsKeptApartAndReported(@TempDir Path tmp) throws Exception {
        try (TestQueue q = new TestQueue(tmp.resolve("p1"), "17", true, 1)) {
            q.region(new RegionInfo(1, "tcp.write", "plain", "yaml", "dprof.yaml:2", OptionalLong.empty()));
            q.end();
        }
        try (TestQueue q = new TestQueue(tmp.resolve("p2"), "17", true, 2)) {
            q.region(new RegionInfo(5, "tcp.write", "send", "tcp", "sun.nio.ch.NioSocketImpl", OptionalLong.empty()));
            q.end();
        }
        RunStatistics stats = RunStatistics.of(List.of(tmp.resolve("p1"), tmp.resolve("p2")));
        assertEquals(List.of("tcp.write", "tcp.write [send]"),
                stats.regions().stream().map(RegionStats::name).sorted().toList());
        assertTrue(stats.problems().contains("region 'tcp.write' is kind plain in host-1 (dprof.yaml:2) but kind send"
                + " in host-2 (sun.nio.ch.NioSocketImpl): not merged, the send region is 'tcp.write [send]'"),
                stats.problems().toString());
    }

    @Test
    void theSameKindMergesByNameAsBefore() {
        List<String> problems = new java.util.ArrayList<>();
        RegionKinds kinds = new RegionKinds(problems);
        RegionInfo a = new RegionInfo(1, "compute", "plain", "yaml", "a.yaml:1", OptionalLong.empty());
        RegionInfo b = new RegionInfo(9, "compute", "plain", "yaml", "b.yaml:4", OptionalLong.empty());
        assertEquals("compute", kinds.mergedName(a, "h-1"));
        assertEquals("compute", kinds.mergedName(b, "h-2"));
        assertEquals(List.of(), problems);
    }
}
