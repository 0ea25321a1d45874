package dev.dprof.report.perfetto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.report.perfetto.proto.TrackDescriptor;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The export of a realistic consolidated run (three processes of two threads, simulated clocks,
 * messages between processes, barriers), read back with the schema's classes: tracks, counts,
 * ordering, bounds and flows; then the same run under a slice budget.
 */
class PerfettoSyntheticRunTest {
    @TempDir
    static Path dir;
    static Consolidated run;
    static long opens;
    static long points;

    @BeforeAll
    static void consolidate() throws Exception {
        run = Consolidated.of(SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 12, 12_000, 5), dir), dir.resolve("profile"),
                "bounded:2.2");
        for (ProfileEvent e : run.events()) {
            if (OpenRegions.opens(e.kind)) {
                opens++;
            } else if (!OpenRegions.closes(e.kind)) {
                points++;
            }
        }
    }

    @Test
    void everyThreadIsOneTrackUnderItsProcessWithBalancedSlicesAndAFlowPerMatchedMessage() throws Exception {
        Path out = dir.resolve("full.perfetto");
        PerfettoExport.Summary summary = PerfettoExport.write(run.profile(), out);
        TraceShape shape = TraceShape.read(out);
        ProfileInfo info = run.info();

        Set<Integer> pids = new HashSet<>();
        Set<Integer> tids = new HashSet<>();
        long processTracks = 0;
        long threadTracks = 0;
        for (TrackDescriptor d : shape.tracks.values()) {
            if (d.hasProcess()) {
                processTracks++;
                assertTrue(pids.add(d.getProcess().getPid()), "one track per process");
            } else if (d.hasThread()) {
                threadTracks++;
                assertTrue(tids.add(d.getThread().getTid()), "one track per thread");
                TrackDescriptor parent = shape.tracks.get(d.getParentUuid());
                assertEquals(d.getThread().getPid(), parent.getProcess().getPid(), "a thread sits under its process");
            }
        }
        assertEquals(info.processes().size(), processTracks);
        assertEquals(info.streams().size(), threadTracks);

        assertEquals(info.events(), summary.events());
        assertEquals(opens, summary.slices(), "every region instance is a slice");
        assertEquals(opens, shape.slices.size());
        assertEquals(points, shape.instants, "every other event is an instant");
        assertEquals(info.messages().matched(), summary.flows(), "a flow per matched message");
        assertEquals(summary.flows(), shape.flowEnds.size());
        assertEquals(0, shape.backwardFlows, "a receive is drawn after its send");
        assertEquals(shape.packets, summary.packets());
        assertEquals(0L, shape.summary.get("slices_left_out"));
        assertEquals(2 * opens + points, shape.bounds, "every event carries its bound");
        long moved = shape.summary.get("receives_moved_to_send") + shape.summary.get("timestamps_raised");
        assertTrue(shape.outsideBound <= moved, shape.outsideBound + " events drawn outside their bound, " + moved + " moved");
        assertTrue(moved * 100 <= summary.events(), "moving is the exception: " + moved);
    }

    @Test
    void underASliceBudgetTheLongestSlicesAndEveryInstantAndFlowAreKept() throws Exception {
        long budget = opens / 5;
        Path out = dir.resolve("budget.perfetto");
        PerfettoExport.Summary summary = PerfettoExport.write(run.profile(), out, budget);
        TraceShape shape = TraceShape.read(out);

        long min = shape.summary.get("min_slice_ns");
        assertTrue(min > 0, "a threshold was chosen");
        assertEquals(opens, summary.slices() + shape.summary.get("slices_left_out"), "every slice is kept or counted");
        long holding = 0;
        for (TraceShape.Slice s : shape.slices) {
            assertTrue(s.end() - s.begin() >= min || s.holdsInstant(), "a short slice kept without reason: " + s);
            holding += s.end() - s.begin() < min ? 1 : 0;
        }
        assertTrue(summary.slices() - holding <= budget, "at most the budget of slices, besides those holding instants");
        assertTrue(summary.slices() - holding > budget / 2, "the budget is used, not wasted");
        assertEquals(points, shape.instants);
        assertEquals(run.info().messages().matched(), summary.flows());
    }
}
