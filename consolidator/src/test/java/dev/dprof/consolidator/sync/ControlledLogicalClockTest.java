package dev.dprof.consolidator.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controlled logical clock on traces worked out on paper, and on synthetic runs whose drifting
 * clocks make the linear pre-synchronization violate the clock condition.
 *
 * <p>The hand trace: process 0's FreeZer midpoints are exact ({@code C = t}), process 1's are 50 ticks
 * late ({@code C = t + 50}), so its message sent at t = 100 (C = 150) seems to arrive at process 0
 * at t = 120 (C = 120). No latency is proven (μ = 0). γ = 0.99, δ = 1.
 */
class ControlledLogicalClockTest {
    private static final int NONE = 0;

    private static Profile trace(Path dir, boolean sendBeforeJump) throws Exception {
        java.nio.file.Files.createDirectories(dir);
        TinyProfile p = new TinyProfile(dir, false);
        int t0 = p.stream(p.process("1/1", "1/1", 0));
        int t1 = p.stream(p.process("1/1", "1/1", 0));
        int work = p.region("work");
        int send = p.region("send", "send");
        int receive = p.region("receive", "receive");
        exact(p, t0, EventKind.ENTER, work, 0, NONE);
        late(p, t1, EventKind.ENTER, work, 0, NONE);
        if (sendBeforeJump) {
            exact(p, t0, EventKind.SEND, send, 100, 2);
            late(p, t1, EventKind.RECEIVE, receive, 60, 2);
        }
        late(p, t1, EventKind.SEND, send, 100, 1);
        exact(p, t0, EventKind.RECEIVE, receive, 120, 1);
        exact(p, t0, EventKind.EXIT, work, 200, NONE);
        exact(p, t0, EventKind.ENTER, work, 400, NONE);
        exact(p, t0, EventKind.EXIT, work, 3000, NONE);
        late(p, t1, EventKind.EXIT, work, 3000, NONE);
        return p.write();
    }

    private static void exact(TinyProfile p, int stream, EventKind kind, int region, long t, long key) {
        p.event(stream, kind, region, t, t, t, t, 9, key);
    }

    /** Midpoint t + 50, a wide interval. */
    private static void late(TinyProfile p, int stream, EventKind kind, int region, long t, long key) {
        p.event(stream, kind, region, t, t + 50 - 60, t + 50 + 60, t, 9, key);
    }

    private static List<Long> points(Path profile, int stream) throws Exception {
        List<Long> points = new ArrayList<>();
        for (ProfileEvent e : Consolidated.readAll(Profile.open(profile))) {
            if (e.stream == stream) {
                points.add(e.lo);
            }
        }
        return points;
    }

    @Test
    void aReceiveBeforeItsSendIsMovedAndTheJumpAmortized(@TempDir Path dir) throws Exception {
        PointSync.Correction c = PointSync.correct(trace(dir.resolve("freezer"), false), dir.resolve("clc"));
        // Process 1 is only pre-synchronized: 50, 150, 3050.
        assertEquals(List.of(50L, 150L, 3050L), points(dir.resolve("clc"), 1));
        // Process 0: the receive goes to the send, 150 (a jump of 30); then forward amortization
        // 150 + 0.99·80 = 229.2, 229.2 + 0.99·200 = 427.2, 427.2 + 0.99·2600 = 3001.2; backward, the
        // enter at 0 rises on the ramp from (120 − 30/0.02, 0) to (120, 30): 30·1380/1500 = 27.6.
        assertEquals(List.of(28L, 150L, 229L, 427L, 3001L), points(dir.resolve("clc"), 0));
        assertEquals(0, c.minimumLatencyBetweenNs(), 0);
        assertEquals(SyncMethod.CLC.label(), c.info().sync());
    }

    @Test
    void theBackwardCorrectionStopsWhereASendWouldPassItsReceive(@TempDir Path dir) throws Exception {
        PointSync.derive(trace(dir.resolve("freezer"), true), SyncMethod.CLC, dir.resolve("clc"));
        // Process 0's send at 100 is received at C = 110: it may rise by 10, not by the ramp's 29.6.
        // The correction becomes the lower hull of (−1380, 0), (100, 10), (120, 30): the enter at 0
        // rises by 10·1380/1480 = 9.32, the send by 10.
        assertEquals(List.of(9L, 110L, 150L, 229L, 427L, 3001L), points(dir.resolve("clc"), 0));
        assertEquals(List.of(50L, 110L, 150L, 3050L), points(dir.resolve("clc"), 1));
    }

    @Test
    void driftingClocksBreakThePreSynchronizationAndTheCorrectionRepairsIt(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 12, 8_000, 21).drift(200)
                .latencyMicros(5, 10), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("freezer"), "bounded:12");
        ControlledLogicalClock clc = ControlledLogicalClock.prepare(c.profile(), new java.util.ArrayList<>());
        ProfileInfo info = c.info();
        double muBetween = clc.minimumLatencies()[1];
        double muWithin = clc.minimumLatencies()[0];
        long before = violations(c.events(), info, (e, p) -> clc.presynchronized(p, e.tick), muWithin, muBetween);
        assertTrue(before > 0, "the pre-synchronization should violate the clock condition here");

        PointSync.Correction corrected = PointSync.correct(c.profile(), dir.resolve("clc"));
        List<ProfileEvent> after = Consolidated.readAll(Profile.open(dir.resolve("clc")));
        // Points are rounded to whole ticks: allow that one tick.
        assertEquals(0, violations(after, info, (e, p) -> e.lo, muWithin - 1, muBetween - 1));
        long[] last = new long[info.streams().size()];
        java.util.Arrays.fill(last, Long.MIN_VALUE);
        for (ProfileEvent e : after) {
            assertTrue(e.lo >= last[e.stream], "program order");
            last[e.stream] = e.lo;
        }
        IntervalDeviation d = corrected.deviation();
        assertTrue(d.intervals() > 0);
        assertTrue(d.distanceWeightedMean() < 0.05, d.toString());
    }

    private interface Time {
        double of(ProfileEvent e, int process);
    }

    /** Messages and barrier exits closer to their send (last enter) than μ. */
    private static long violations(List<ProfileEvent> events, ProfileInfo info, Time time, double muWithin,
                                   double muBetween) {
        int[] processOf = new int[info.streams().size()];
        info.streams().forEach(s -> processOf[s.index()] = s.process());
        MessageMatcher<double[]> matcher = new MessageMatcher<>(info);
        Map<Long, double[]> lastEnter = new HashMap<>();
        long violations = 0;
        for (ProfileEvent e : events) {
            int p = processOf[e.stream];
            double t = time.of(e, p);
            switch (e.kind) {
                case SEND -> matcher.send(e, new double[] {t, p});
                case RECEIVE -> {
                    double[] s = matcher.receive(e);
                    if (s != null && t < s[0] + (s[1] == p ? muWithin : muBetween) - 1e-6) {
                        violations++;
                    }
                }
                case BARRIER_ENTER -> lastEnter.merge(e.region * 1_000_003L + e.a, new double[] {t, p},
                        (x, y) -> x[0] >= y[0] ? x : y);
                case BARRIER_EXIT -> {
                    double[] enter = lastEnter.get(e.region * 1_000_003L + e.a);
                    if (enter != null && t < enter[0] - 1e-6) {
                        violations++;
                    }
                }
                default -> {
                }
            }
        }
        return violations;
    }
}
