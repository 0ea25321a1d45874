package dev.dprof.consolidator.analysis.straggler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The straggler score on a two-thread profile written by hand (one thread per process, reference
 * ticks at 1 GHz), worked out on paper:
 *
 * <pre>
 *             body enter   body exit    barrier enter  barrier exit
 * thread 0    [0, 10] 5    [100,110] 105  [112,114] 113  [120,130] 125
 * thread 1    [0, 10] 6    [40, 50] 45    [52, 56] 54    [120,130] 126
 * </pre>
 * Span: outer [0, 130) (130 ticks), inner [10, 120) (110 ticks). Thread 0 is certainly in the body
 * while thread 1 is certainly in the barrier over [56, 100) = 44 ticks, possibly over [52, 110) = 58:
 * score ∈ [44/130, 58/110]. Truth: thread 0's body [5, 105) ∩ thread 1's barrier [54, 126) = 51 ticks
 * of the true span [5, 126) = 121 ticks. Thread 1 never straggles: [0, 0], truth 0.
 */
class StragglerScoreHandComputedTest {
    static final int BODY = 0;
    static final int BARRIER = 1;

    static ProfileEvent event(int stream, EventKind kind, int region, long lo, long hi, long truth, long tick) {
        ProfileEvent e = new ProfileEvent();
        e.stream = stream;
        e.kind = kind;
        e.region = region;
        e.lo = lo;
        e.hi = hi;
        e.truth = truth;
        e.tick = tick;
        if (kind == EventKind.BARRIER_ENTER || kind == EventKind.BARRIER_EXIT) {
            e.a = 7;
            e.b = 2;
        }
        return e;
    }

    static Profile write(Path dir, ProfileInfo.Window window) throws Exception {
        List<ProfileEvent> events = new ArrayList<>(List.of(
                event(0, EventKind.ENTER, BODY, 0, 10, 5, 1000),
                event(0, EventKind.EXIT, BODY, 100, 110, 105, 1100),
                event(0, EventKind.BARRIER_ENTER, BARRIER, 112, 114, 113, 1108),
                event(0, EventKind.BARRIER_EXIT, BARRIER, 120, 130, 125, 1120),
                event(1, EventKind.ENTER, BODY, 0, 10, 6, 2000),
                event(1, EventKind.EXIT, BODY, 40, 50, 45, 2040),
                event(1, EventKind.BARRIER_ENTER, BARRIER, 52, 56, 54, 2048),
                event(1, EventKind.BARRIER_EXIT, BARRIER, 120, 130, 126, 2121)));
        events.sort(Comparator.comparingLong((ProfileEvent e) -> e.lo).thenComparingInt(e -> e.stream));
        try (ProfileEventsWriter w = new ProfileEventsWriter(dir.resolve(Profile.EVENTS), true)) {
            for (ProfileEvent e : events) {
                w.write(e);
            }
        }
        List<ProfileInfo.Process> processes = List.of(
                new ProfileInfo.Process(0, "a", 1, "dom-a", "BOUNDED", 1e9, 20, null, 0, true, "1/1", "1/1", 1, 1, null, null),
                new ProfileInfo.Process(1, "b", 2, "dom-b", "BOUNDED", 1e9, 20, null, 0, true, "1/1", "1/1", 1, 1, null, null));
        ProfileInfo info = new ProfileInfo(ProfileInfo.FORMAT_VERSION, "freezer", "by hand", "dom-a", 1e9, window, true,
                processes, List.of(new ProfileInfo.Stream(0, 0, 10, "t0"), new ProfileInfo.Stream(1, 1, 10, "t1")),
                List.of(new ProfileInfo.Region(BODY, "body", "plain"), new ProfileInfo.Region(BARRIER, "barrier", "barrier")),
                new ProfileInfo.Messages(0, 0, 0, 0, 0, 0, 1), events.size(), 0, 0, List.of());
        Profile.writeInfo(dir, info);
        return Profile.open(dir);
    }

    @Test
    void boundsAndTruthOfBothThreadsAndProcesses(@TempDir Path dir) throws Exception {
        StragglerScore.Result r = StragglerScore.compute(write(dir, null), "body", "barrier");
        assertEquals(2, r.threads().size());
        StragglerScore.ThreadScore t0 = r.threads().get(0);
        StragglerScore.ThreadScore t1 = r.threads().get(1);
        assertEquals(44.0 / 130, t0.lo(), 1e-12);
        assertEquals(58.0 / 110, t0.hi(), 1e-12);
        assertEquals(51.0 / 121, t0.truth(), 1e-12);
        assertEquals(0.0, t1.lo());
        assertEquals(0.0, t1.hi());
        assertEquals(0.0, t1.truth());
        StragglerScore.ProcessScore p0 = r.processes().get(0);
        StragglerScore.ProcessScore p1 = r.processes().get(1);
        assertEquals("a-1", p0.label());
        assertEquals(44.0 / 130, p0.lo(), 1e-12);
        assertEquals(58.0 / 110, p0.hi(), 1e-12);
        assertEquals(51.0 / 121, p0.truth(), 1e-12);
        assertEquals(0.0, p1.hi());
        assertEquals(110e-9, r.spanSecondsMin(), 1e-18);
        assertEquals(130e-9, r.spanSecondsMax(), 1e-18);
        assertEquals("BOUNDED", r.quality());
    }

    /** With a window [20, 110) the span is exact: certain 44, possible 58, truth [54, 105) = 51 of 90. */
    @Test
    void aWindowFixesTheSpan(@TempDir Path dir) throws Exception {
        StragglerScore.Result r = StragglerScore.compute(write(dir, new ProfileInfo.Window(20, 110)), "body", "barrier");
        StragglerScore.ThreadScore t0 = r.threads().get(0);
        assertEquals(44.0 / 90, t0.lo(), 1e-12);
        assertEquals(58.0 / 90, t0.hi(), 1e-12);
        assertEquals(51.0 / 90, t0.truth(), 1e-12);
    }

    @Test
    void anUnknownRegionIsNamed(@TempDir Path dir) throws Exception {
        Profile p = write(dir, null);
        ProfileException e = assertThrows(ProfileException.class, () -> StragglerScore.compute(p, "bodie", "barrier"));
        assertEquals("no region named 'bodie' (regions: [body, barrier])", e.getMessage());
    }
}
