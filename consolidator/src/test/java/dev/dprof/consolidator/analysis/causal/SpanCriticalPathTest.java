package dev.dprof.consolidator.analysis.causal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The critical path over a span, worked out on paper (conventions of {@link CausalHandComputedTest}:
 * reference ticks are nanoseconds, slopes 1/1, {@code Δk} ticks weigh {@code [Δk − 1, Δk + 1]}):
 * the path ending at the span's end, cut at its start {@code S}; an edge counts its part after
 * {@code S}, bounded by {@code [max(0, min(wLo, t_lo(v) − S_hi)), max(0, min(wHi, t_hi(v) − S_lo))]}.
 */
class SpanCriticalPathTest {
    private static final long NONE = 0;

    /**
     * {@link CausalHandComputedTest}'s fork/join with a marker on t0 whose enter starts the span:
     * <pre>
     * t0  ENTER wait 0, ENTER mark [markLo, markHi] (truth 50), EXIT mark 50, RECEIVE k3 105, RECEIVE k4 205, EXIT wait 205
     * t1  ENTER work1 5, EXIT work1 100, SEND k3 100
     * t2  ENTER work2 5, EXIT work2 200, SEND k4 200
     * </pre>
     * The path to t0's last exit runs through t2: work2 from 5 to 200, its send, the message (5 ns).
     */
    private static Profile marked(Path dir, long markLo, long markHi) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int t0 = p.stream(p.process("1/1", "1/1", 0));
        int t1 = p.stream(p.process("1/1", "1/1", 0));
        int t2 = p.stream(p.process("1/1", "1/1", 0));
        int wait = p.region("wait");
        int mark = p.region("mark");
        int work1 = p.region("work1");
        int work2 = p.region("work2");
        int send = p.region("send", "send");
        int receive = p.region("receive", "receive");
        point(p, t0, EventKind.ENTER, wait, 0, NONE);
        point(p, t1, EventKind.ENTER, work1, 5, NONE);
        point(p, t2, EventKind.ENTER, work2, 5, NONE);
        p.event(t0, EventKind.ENTER, mark, 50, markLo, markHi, 50, 9, NONE);
        point(p, t0, EventKind.EXIT, mark, 50, NONE);
        point(p, t1, EventKind.EXIT, work1, 100, NONE);
        point(p, t1, EventKind.SEND, send, 100, 3);
        point(p, t0, EventKind.RECEIVE, receive, 105, 3);
        point(p, t2, EventKind.EXIT, work2, 200, NONE);
        point(p, t2, EventKind.SEND, send, 200, 4);
        point(p, t0, EventKind.RECEIVE, receive, 205, 4);
        point(p, t0, EventKind.EXIT, wait, 205, NONE);
        return p.write();
    }

    private static void point(TinyProfile p, int stream, EventKind kind, int region, long t, long key) {
        p.event(stream, kind, region, t, t, t, t, 9, key);
    }

    @Test
    void theWholeProfileCountsWorkBeforeTheMarker(@TempDir Path dir) throws Exception {
        CriticalPath.Result r = CriticalPath.compute(marked(dir, 50, 50));
        assertEquals(205, r.lengthTicksLo());
        assertShare(r, "work2", 194, 196);
        assertShare(r, CriticalPath.OUTSIDE, 5, 6);
    }

    @Test
    void theSpanCutsTheEdgeItStartsIn(@TempDir Path dir) throws Exception {
        // S = 50 exactly. work2's edge 5 → 200 weighs [194, 196]; its part after S is
        // [min(194, 200 − 50), min(196, 200 − 50)] = [150, 150]. Then EXIT → SEND [0, 1] outside,
        // the message 5, RECEIVE → EXIT [0, 1] in wait. The path is 205 − 50 = 155.
        CriticalPath.Result r = CriticalPath.compute(marked(dir, 50, 50), "mark", "wait");
        assertEquals(155, r.lengthTicksLo());
        assertEquals(155, r.lengthTicksHi());
        assertEquals(155, r.lengthTicksTruth());
        assertShare(r, "work2", 150, 150);
        assertShare(r, CriticalPath.OUTSIDE, 0, 1);
        assertShare(r, CriticalPath.COMMUNICATION, 5, 5);
        assertShare(r, "wait", 0, 1);
        assertShare(r, "work1", 0, 0);
        CriticalPath.Share work2 = share(r, "work2");
        assertEquals(150 / 155.0, work2.lo(), 1e-12);
        assertEquals(150 / 155.0, work2.hi(), 1e-12);
        assertEquals(150 / 155.0, work2.truth(), 1e-12);
        // Zeroing is over the same span: work2 at zero, t1's answer at 105 ends it: 105 − 50 = 55.
        CriticalPath.Zeroing z = r.zeroing().stream().filter(x -> x.region().equals("work2")).findFirst().orElseThrow();
        assertEquals(55, z.newLengthTicksLo());
        assertEquals(55, z.newLengthTicksHi());
        assertEquals(100 / 155.0, z.savedLo(), 1e-12);
    }

    @Test
    void aStartKnownAsAnIntervalWidensTheCutBothWays(@TempDir Path dir) throws Exception {
        // S ∈ [45, 55] (truth 50): work2's part after S is [max(0, min(194, 200 − 55)), min(196, 200 − 45)]
        // = [145, 155], the path [205 − 55, 205 − 45] = [150, 160]; the truth, 150 of 155, lies within.
        CriticalPath.Result r = CriticalPath.compute(marked(dir, 45, 55), "mark", "wait");
        assertEquals(150, r.lengthTicksLo());
        assertEquals(160, r.lengthTicksHi());
        assertEquals(155, r.lengthTicksTruth());
        assertShare(r, "work2", 145, 155);
        CriticalPath.Share work2 = share(r, "work2");
        assertEquals(145 / 160.0, work2.lo(), 1e-12);
        assertEquals(1.0, work2.hi(), 1e-12);
        assertEquals(150 / 155.0, work2.truth(), 1e-12);
    }

    @Test
    void aPathThatStartsAfterTheSpanCountsTheGapOutside(@TempDir Path dir) throws Exception {
        // From work1's enter at 5 (t1; t2 enters work2 at 5 too, but only t1 enters work1): the path
        // to t0's exit starts at t2's first event, 5, so nothing of it lies before S = 5 and the gap
        // S → origin is 0; whole, it would be 5 outside.
        Profile profile = marked(dir, 50, 50);
        CriticalPath.Result r = CriticalPath.compute(profile, "work1", "wait");
        assertEquals(200, r.lengthTicksLo());
        assertShare(r, "work2", 194, 195);
        assertShare(r, CriticalPath.OUTSIDE, 0, 1);
        // Ending at t1's work1 exit (100): the path is t1's work1, 5 → 100, all of it after S.
        CriticalPath.Result work1 = CriticalPath.compute(profile, "work1", "work1");
        assertEquals(95, work1.lengthTicksLo());
        assertShare(work1, "work1", 94, 95);
        assertShare(work1, "work2", 0, 0);
    }

    @Test
    void aSpanRegionThatIsNeverEnteredIsAnError(@TempDir Path dir) throws Exception {
        Profile profile = marked(dir, 50, 50);
        assertThrows(ProfileException.class, () -> CriticalPath.compute(profile, "send", "wait"));
        assertThrows(ProfileException.class, () -> CriticalPath.compute(profile, "nothing", null));
    }

    /**
     * One thread that starts up outside any region for 1000 ns, then works 100 ns in a region: the
     * whole profile's path is mostly outside regions (the note fires), the span of the work's is not.
     */
    @Test
    void theIncompleteNoteIsAboutTheSpan(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int t0 = p.stream(p.process("1/1", "1/1", 0));
        int boot = p.region("boot");
        int work = p.region("work");
        point(p, t0, EventKind.ENTER, boot, 0, NONE);
        point(p, t0, EventKind.EXIT, boot, 10, NONE);
        point(p, t0, EventKind.ENTER, work, 1000, NONE);
        point(p, t0, EventKind.EXIT, work, 1100, NONE);
        Profile profile = p.write();
        Incomplete whole = CriticalPath.compute(profile).incomplete();
        assertNotNull(whole);
        // 10 → 1000 weighs [989, 991] of [1100, 1100].
        assertEquals(989 / 1100.0, whole.outsideShareLo(), 1e-12);
        CriticalPath.Result span = CriticalPath.compute(profile, "work", "work");
        assertEquals(100, span.lengthTicksLo());
        assertShare(span, "work", 99, 100);
        assertShare(span, CriticalPath.OUTSIDE, 0, 0);
        assertNull(span.incomplete());
        assertNull(WhatIf.rank(profile, 0.5, "work", "work").incomplete());
    }

    private static CriticalPath.Share share(CriticalPath.Result r, String name) {
        return r.shares().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
    }

    private static void assertShare(CriticalPath.Result r, String name, long lo, long hi) {
        CriticalPath.Share s = share(r, name);
        assertEquals(lo, s.ticksLo(), name);
        assertEquals(hi, s.ticksHi(), name);
    }
}
