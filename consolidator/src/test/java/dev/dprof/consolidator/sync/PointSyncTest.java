package dev.dprof.consolidator.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression and convex hull on hand-computed message sets, and both end to end on a synthetic run.
 *
 * <p>The hand case: the parent's clock is {@code y = 2x + 100} of the node's, every message takes
 * 10 parent ticks. Up (node → parent): sent at x = 0, 100, 200, received at y = 110, 310, 510.
 * Down: sent at y = 300, 500, received at x = 105, 205.
 */
class PointSyncTest {
    private static MessagePairs.Direction direction(long[][] sentReceived) {
        MessagePairs.Direction d = new MessagePairs.Direction();
        for (long[] m : sentReceived) {
            d.add(m[0], m[1]);
        }
        return d;
    }

    private static final MessagePairs.Direction UP = direction(new long[][] {{0, 110}, {100, 310}, {200, 510}});
    private static final MessagePairs.Direction DOWN = direction(new long[][] {{300, 105}, {500, 205}});

    @Test
    void theConvexHullTakesTheMiddleOfTheCorridor() {
        // Up points bound the line from above (y ≤ 2x + 110 at 0, 100, 200), down points from below
        // (y ≥ 2x + 90 at 105, 205). At x = 0 the corridor is [1290/19, 110] (lowest: the line through
        // (105, 300) and (200, 510)); at x = 205 it is [500, 9900/19]. The middle line joins
        // (0, 1690/19) and (205, 9700/19).
        LinearClock middle = PointSync.corridorMiddle(UP, DOWN, 0, 110).orElseThrow();
        assertEquals(1690.0 / 19, middle.apply(0), 1e-9);
        assertEquals(9700.0 / 19, middle.apply(205), 1e-9);
        assertEquals(8010.0 / 19 / 205, middle.slope(), 1e-12);
    }

    @Test
    void regressionFitsAllPointsOfBothDirections() {
        // Points (0,110) (100,310) (200,510) (105,300) (205,500): mean (122, 346),
        // Sxy = 55940, Sxx = 28630.
        LinearClock line = PointSync.fit(UP, DOWN, SyncMethod.LR, "node against parent", new ArrayList<>()).line();
        double slope = 55940.0 / 28630;
        assertEquals(slope, line.slope(), 1e-12);
        assertEquals(346 - 122 * slope, line.apply(0), 1e-9);
        assertEquals(346 + 83 * slope, line.apply(205), 1e-9);
    }

    @Test
    void theConvexHullNeedsBothDirections() {
        assertEquals(Optional.empty(), PointSync.corridorMiddle(UP, new MessagePairs.Direction(), 0, 110));
        // Crossing points: no line separates them.
        MessagePairs.Direction late = direction(new long[][] {{600, 50}});
        assertEquals(Optional.empty(), PointSync.corridorMiddle(UP, late, 0, 110));
    }

    @Test
    void bothMethodsRetimeASyntheticRunThatEveryAnalysisReads(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 8, 6_000, 4).straggler(1, 2.0), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("freezer"), "bounded:2.2");
        long lambda = SyncQuality.minimumLatencyTicks(c.profile());
        assertTrue(lambda > 0);
        SyncQuality.Figures freezer = SyncQuality.measure(c.profile(), "freezer", lambda);
        assertTrue(freezer.messages() > 0);
        for (SyncMethod m : SyncMethod.values()) {
            ProfileInfo info = PointSync.derive(c.profile(), m, dir.resolve(m.label())).info();
            Profile p = Profile.open(dir.resolve(m.label()));
            assertEquals(m.label(), info.sync());
            assertEquals(c.info().events(), info.events());
            for (ProfileEvent e : Consolidated.readAll(p)) {
                assertEquals(e.lo, e.hi);
                assertEquals(e.lo, e.tick);
            }
            SyncQuality.Figures f = SyncQuality.measure(p, m.label(), lambda);
            assertEquals(freezer.messages(), f.messages());
            assertNotNull(f.errorMeanNs());
            assertTrue(f.errorMaxNs() >= f.errorP99Ns() && f.errorP99Ns() >= 0, f.toString());
            StragglerScore.Result s = StragglerScore.compute(p, SyntheticRun.BODY, SyntheticRun.BARRIER);
            assertEquals(3, s.processes().size());
            s.processes().forEach(ps -> assertEquals(ps.lo(), ps.hi(), 1e-12));
        }
    }
}
