package dev.dprof.consolidator.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.CollectiveEdges;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controlled logical clock on synthetic multi-process runs with simulated drifting clocks whose
 * iterations end in collectives of every flavour (N-to-N, 1-to-N, N-to-1, scan, exscan): FreeZer's
 * intervals hold the truth; the linear pre-synchronization breaks the clock condition; after the
 * correction no message and no logical message of a collective (Becker §4.1, worked out
 * independently by {@link CollectiveEdges}) is closer than μ, program order holds, and the local
 * intervals change little (Becker §6.2).
 */
class ClcCollectivesPropertiesTest {

    @ParameterizedTest(name = "seed {0}, drift {1} ppm")
    @CsvSource({"21, 200", "22, 200", "23, 100", "24, 0"})
    void afterTheCorrectionNoCollectiveOrMessageBreaksTheClockCondition(long seed, double drift, @TempDir Path dir)
            throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 15, 8_000, seed).drift(drift)
                .latencyMicros(5, 10).collectives(true), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("freezer"), "bounded:12");
        for (ProfileEvent e : c.events()) {
            assertTrue(e.lo <= e.truth && e.truth <= e.hi, "FreeZer's interval holds the truth");
        }
        ProfileInfo info = c.info();
        assertEquals(List.of(), info.problems());
        ControlledLogicalClock clc = ControlledLogicalClock.prepare(c.profile(), new java.util.ArrayList<>());
        double muWithin = clc.minimumLatencies()[0];
        double muBetween = clc.minimumLatencies()[1];
        int[] processOf = new int[info.streams().size()];
        info.streams().forEach(s -> processOf[s.index()] = s.process());
        List<ProfileEvent> before = c.events();
        double[] presync = before.stream().mapToDouble(e -> clc.presynchronized(processOf[e.stream], e.tick)).toArray();
        long violationsBefore = violations(before, info, processOf, presync, muWithin, muBetween);
        if (drift >= 200) {
            assertTrue(violationsBefore > 0, "the pre-synchronization should break the clock condition here");
        }

        PointSync.Correction corrected = PointSync.correct(c.profile(), dir.resolve("clc"));
        List<ProfileEvent> after = Consolidated.readAll(Profile.open(dir.resolve("clc")));
        assertEquals(before.size(), after.size());
        double[] points = after.stream().mapToDouble(e -> e.lo).toArray();
        // Points are rounded to whole ticks: allow that one tick.
        assertEquals(0, violations(after, info, processOf, points, muWithin - 1, muBetween - 1),
                violationsBefore + " violations before");
        long[] last = new long[info.streams().size()];
        java.util.Arrays.fill(last, Long.MIN_VALUE);
        for (ProfileEvent e : after) {
            assertTrue(e.lo >= last[e.stream], "program order");
            last[e.stream] = e.lo;
        }
        IntervalDeviation d = corrected.deviation();
        assertEquals(before.size() - info.streams().size(), d.intervals());
        assertTrue(d.distanceWeightedMean() < 0.05, d.toString());
    }

    /** Messages and collective logical messages whose receive comes less than μ after the send. */
    private static long violations(List<ProfileEvent> events, ProfileInfo info, int[] processOf, double[] time,
                                   double muWithin, double muBetween) {
        long violations = 0;
        MessageMatcher<Integer> matcher = new MessageMatcher<>(info);
        for (int i = 0; i < events.size(); i++) {
            ProfileEvent e = events.get(i);
            if (e.kind == EventKind.SEND) {
                matcher.send(e, i);
            } else if (e.kind == EventKind.RECEIVE) {
                Integer s = matcher.receive(e);
                if (s != null && broken(s, i, events, processOf, time, muWithin, muBetween)) {
                    violations++;
                }
            }
        }
        for (CollectiveEdges edge : CollectiveEdges.of(events)) {
            if (broken(edge.enter(), edge.exit(), events, processOf, time, muWithin, muBetween)) {
                violations++;
            }
        }
        return violations;
    }

    private static boolean broken(int send, int receive, List<ProfileEvent> events, int[] processOf, double[] time,
                                  double muWithin, double muBetween) {
        boolean same = processOf[events.get(send).stream] == processOf[events.get(receive).stream];
        return time[receive] < time[send] + (same ? muWithin : muBetween) - 1e-6;
    }
}
