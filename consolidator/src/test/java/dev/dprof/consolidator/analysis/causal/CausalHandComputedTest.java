package dev.dprof.consolidator.analysis.causal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventKind;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The what-if, zeroing and critical path on DAGs worked out on paper. Reference ticks are
 * nanoseconds, every clock runs at exactly the reference's rate (slopes 1/1) and every event's
 * interval is a point, so the bounds differ from the truth only by the quantisation of the
 * program-order edges: {@code Δk} ticks weigh {@code [Δk − 1, Δk + 1]}.
 */
class CausalHandComputedTest {
    private static final long NONE = 0;

    /**
     * Fork/join: t1 and t2 (processes 1, 2) work and send their result to t0 (process 0), which
     * waits for both.
     * <pre>
     * t0  ENTER wait 0 ........ RECEIVE k3 105 ... RECEIVE k4 205, EXIT wait 205
     * t1  ENTER work1 5, EXIT work1 100, SEND k3 100
     * t2  ENTER work2 5, EXIT work2 200, SEND k4 200
     * </pre>
     * Latency floors: 5 both ways. Span 0..205.
     */
    private static Profile forkJoin(Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int p0 = p.process("1/1", "1/1", 0);
        int p1 = p.process("1/1", "1/1", 0);
        int p2 = p.process("1/1", "1/1", 0);
        int t0 = p.stream(p0);
        int t1 = p.stream(p1);
        int t2 = p.stream(p2);
        int wait = p.region("wait");
        int work1 = p.region("work1");
        int work2 = p.region("work2");
        int send = p.region("send", "send");
        int receive = p.region("receive", "receive");
        point(p, t0, EventKind.ENTER, wait, 0, NONE);
        point(p, t1, EventKind.ENTER, work1, 5, NONE);
        point(p, t2, EventKind.ENTER, work2, 5, NONE);
        point(p, t1, EventKind.EXIT, work1, 100, NONE);
        point(p, t1, EventKind.SEND, send, 100, 3);
        point(p, t0, EventKind.RECEIVE, receive, 105, 3);
        point(p, t2, EventKind.EXIT, work2, 200, NONE);
        point(p, t2, EventKind.SEND, send, 200, 4);
        point(p, t0, EventKind.RECEIVE, receive, 205, 4);
        point(p, t0, EventKind.EXIT, wait, 205, NONE);
        return p.write();
    }

    /** An event at reference time {@code t} (its own tick too), exactly known; {@code key} for messages. */
    private static void point(TinyProfile p, int stream, EventKind kind, int region, long t, long key) {
        p.event(stream, kind, region, t, t, t, t, 9, key);
    }

    @Test
    void cuttingTheLastWorkerShortensTheSpanByItsCut(@TempDir Path dir) throws Exception {
        // work2: Δk = 195 weighs [194, 196]; half of it [97, 98] (truth 97.5, rounded out to [97, 98]).
        // t0's second receive waits for t2: R = 205 − max(105, 205 − R(send)) = R(send).
        WhatIf.Result r = WhatIf.predict(forkJoin(dir), "work2", List.of(0.5), null, null);
        WhatIf.Prediction p = r.predictions().get(0);
        assertEquals(97, p.gainTicksLo());
        assertEquals(98, p.gainTicksHi());
        assertEquals(97 / 205.0, p.lo(), 1e-12);
        assertEquals(98 / 205.0, p.hi(), 1e-12);
        assertEquals(97.5 / 205, p.truth(), 1e-12);
        assertEquals(205, r.spanNsLo(), 1e-9);
        assertEquals(205, r.spanNsHi(), 1e-9);
    }

    @Test
    void zeroingIsALongestPathNotASubtraction(@TempDir Path dir) throws Exception {
        // work2 at zero: its send would come at 5, but t1's result still arrives at 105: the span
        // shrinks by 100, not by work2's 195.
        WhatIf.Prediction p = WhatIf.predict(forkJoin(dir), "work2", List.of(1.0), null, null).predictions().get(0);
        assertEquals(100, p.gainTicksLo());
        assertEquals(100, p.gainTicksHi());
        assertEquals(100 / 205.0, p.truth(), 1e-12);
    }

    @Test
    void aRegionOffTheCriticalPathGainsNothing(@TempDir Path dir) throws Exception {
        WhatIf.Prediction p = WhatIf.predict(forkJoin(dir), "work1", List.of(0.5), null, null).predictions().get(0);
        assertEquals(0, p.gainTicksLo());
        assertEquals(0, p.gainTicksHi());
        assertEquals(0.0, p.truth(), 0);
    }

    @Test
    void theCriticalPathRunsThroughTheLastWorker(@TempDir Path dir) throws Exception {
        CriticalPath.Result r = CriticalPath.compute(forkJoin(dir));
        assertEquals(205, r.lengthTicksLo());
        assertEquals(205, r.lengthTicksHi());
        // t2 starts at 5 (outside, before its first event) + work2 [194, 196] + EXIT→SEND [0, 1] outside
        // + the message 5 (communication) + RECEIVE→EXIT wait [0, 1].
        assertShare(r, "work2", 194, 196);
        assertShare(r, CriticalPath.COMMUNICATION, 5, 5);
        assertShare(r, CriticalPath.OUTSIDE, 5, 6);
        assertShare(r, "wait", 0, 1);
        assertShare(r, "work1", 0, 0);
        CriticalPath.Zeroing z = r.zeroing().stream().filter(x -> x.region().equals("work2")).findFirst().orElseThrow();
        assertEquals(100 / 205.0, z.savedLo(), 1e-12);
        assertEquals(100 / 205.0, z.savedHi(), 1e-12);
        assertEquals(105, z.newLengthTicksLo());
        assertEquals(105, z.newLengthTicksHi());
    }

    private static void assertShare(CriticalPath.Result r, String name, long lo, long hi) {
        CriticalPath.Share s = r.shares().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        assertEquals(lo, s.ticksLo(), name);
        assertEquals(hi, s.ticksHi(), name);
    }

    /**
     * A barrier: three ranks (one thread each) work 100, 60 and 30 ns in body[rank], enter the barrier,
     * all leave it at 110 (floor 110 − 100 = 10), then work 40 more.
     */
    private static Profile barrier(Path dir) throws Exception {
        return barrier(dir, false);
    }

    /** With {@code fixed}, body's instance is fixed per process at start (plain ENTERs), not per call. */
    private static Profile barrier(Path dir, boolean fixed) throws Exception {
        return barrier(dir, fixed, rank -> 3);
    }

    /** The same with the collective's shape of each rank given ({@code CollectiveShape}; 3: a barrier of three). */
    private static Profile barrier(Path dir, boolean fixed, java.util.function.IntToLongFunction shape) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int[] t = new int[3];
        for (int i = 0; i < 3; i++) {
            int process = p.process("1/1", "1/1", 0);
            if (fixed) {
                p.instance(process, "body", i);
            }
            t[i] = p.stream(process);
        }
        int body = p.region("body");
        int barrier = p.region("barrier", "barrier");
        int after = p.region("after");
        long[] work = {100, 60, 30};
        for (int i = 0; i < 3; i++) {
            p.event(t[i], fixed ? EventKind.ENTER : EventKind.ENTER_INSTANCE, body, 0, 0, 0, 0, fixed ? 0 : i, 0);
        }
        for (int i = 2; i >= 0; i--) {
            point(p, t[i], EventKind.EXIT, body, work[i], NONE);
            p.event(t[i], EventKind.BARRIER_ENTER, barrier, work[i], work[i], work[i], work[i], 1, shape.applyAsLong(i));
        }
        for (int i = 0; i < 3; i++) {
            p.event(t[i], EventKind.BARRIER_EXIT, barrier, 110, 110, 110, 110, 1, shape.applyAsLong(i));
            point(p, t[i], EventKind.ENTER, after, 110, NONE);
        }
        for (int i = 0; i < 3; i++) {
            point(p, t[i], EventKind.EXIT, after, 150, NONE);
        }
        return p.write();
    }

    @ParameterizedTest(name = "instance fixed at start: {0}")
    @ValueSource(booleans = {false, true})
    void speedingUpTheStragglerStopsPayingWhenTheNextOneIsLast(boolean fixed, @TempDir Path dir) throws Exception {
        Profile profile = barrier(dir, fixed);
        // body[0] at half: rank 0 enters at [49, 51] less → exits follow rank 1's enter at 60 + 10:
        // 110 − max(100 − R + 10, 70, 40) = min(R, 40) = 40 for R ∈ [49, 51].
        WhatIf.Result r = WhatIf.predict(profile, "body[0]", List.of(0.25, 0.5, 1.0), "body", "after");
        assertEquals(150, r.spanNsLo(), 1e-9);
        long[][] expected = {{24, 26}, {40, 40}, {40, 40}};
        for (int k = 0; k < 3; k++) {
            WhatIf.Prediction p = r.predictions().get(k);
            assertEquals(expected[k][0], p.gainTicksLo(), "cut " + p.fraction());
            assertEquals(expected[k][1], p.gainTicksHi(), "cut " + p.fraction());
        }
        assertEquals(25 / 150.0, r.predictions().get(0).truth(), 1e-12);
        // Another rank's body is not on the critical path at all.
        assertEquals(0, WhatIf.predict(profile, "body[2]", List.of(1.0), null, null).predictions().get(0).gainTicksHi());
    }

    /**
     * The same trace as a broadcast from rank 2 (Becker §4.1, 1-to-N): every exit joins on the
     * root's enter at 30 only, floor 110 − 30 = 80. Rank 0 arriving sooner releases nobody, so
     * halving body[0] gains nothing (as a barrier it gained 40). Removing the root's body moves its
     * enter to 0: ranks 1 and 2 leave at max(own, 0 + 80) = 80, rank 0 still at its own 100, so the
     * span ends at 100 + 40 = 140: a gain of 10.
     */
    @Test
    void aBroadcastsExitsJoinOnlyOnTheRootsEnter(@TempDir Path dir) throws Exception {
        Profile profile = barrier(dir, false,
                rank -> new CollectiveShape(CollectiveFlavour.ONE_TO_N, 3, rank, 2).pack());
        WhatIf.Prediction half = WhatIf.predict(profile, "body[0]", List.of(0.5), "body", "after").predictions().get(0);
        assertEquals(0, half.gainTicksLo());
        assertEquals(0, half.gainTicksHi());
        WhatIf.Prediction root = WhatIf.predict(profile, "body[2]", List.of(1.0), "body", "after").predictions().get(0);
        assertEquals(10, root.gainTicksLo());
        assertEquals(10, root.gainTicksHi());
        assertEquals(10 / 150.0, root.truth(), 1e-12);
    }

    @Test
    void rankingPutsTheStragglersRegionFirst(@TempDir Path dir) throws Exception {
        WhatIf.Result r = WhatIf.rank(barrier(dir), 0.5, null, null);
        // "after" (every rank's last 40 ns, in parallel) gains 20; body (all ranks at half) 50;
        // body[0] alone 40 (then rank 1 is last).
        assertEquals("body", r.predictions().get(0).region());
        assertEquals(49, r.predictions().get(0).gainTicksLo());
        assertEquals("body[0]", r.predictions().get(1).region());
        assertEquals("after", r.predictions().get(2).region());
        assertEquals(19, r.predictions().get(2).gainTicksLo());
        assertEquals(21, r.predictions().get(2).gainTicksHi());
    }

    /**
     * Two requests on one thread, each 70 ns with 50 ns of work inside, a progress point after each:
     * request [0, 70] (work [10, 60]), request [100, 170] (work [110, 160]).
     */
    private static Profile requests(Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int t = p.stream(p.process("1/1", "1/1", 0));
        int request = p.region("request");
        int work = p.region("work");
        int done = p.region("done", "progress");
        for (long at : new long[] {0, 100}) {
            point(p, t, EventKind.ENTER, request, at, NONE);
            point(p, t, EventKind.ENTER, work, at + 10, NONE);
            point(p, t, EventKind.EXIT, work, at + 60, NONE);
            point(p, t, EventKind.EXIT, request, at + 70, NONE);
            p.event(t, EventKind.PROGRESS, done, at + 70, at + 70, at + 70, at + 70, 1, 0);
        }
        return p.write();
    }

    @Test
    void throughputAndLatencyAtProgressPointsAsCozReportsThem(@TempDir Path dir) throws Exception {
        WhatIf.Prediction p = WhatIf.predict(requests(dir), "work", List.of(0.5), null, null, "request")
                .predictions().get(0);
        // Each work instance weighs [49, 51], half of it [24, 26] (truth 25). The visits move from
        // 70 and 170 to 45 and 120: the period between them shrinks from 100 to 75 — throughput 25%,
        // bounded by [R(last) − R(first)] = [48 − 26, 52 − 24] over 100.
        WhatIf.ProgressSpeedup throughput = p.progress().get(0);
        assertEquals("done", throughput.point());
        assertEquals(2, throughput.visits());
        assertEquals(0.22, throughput.lo(), 1e-12);
        assertEquals(0.28, throughput.hi(), 1e-12);
        assertEquals(0.25, throughput.truth(), 1e-12);
        // Latency: each request is 25 shorter of 70: 50/140. Bounds: the gains R(exit) − R(enter),
        // [24 − 0, 26 − 0] + [48 − 26, 52 − 24] = [46, 54], over the durations [69, 71] × 2.
        WhatIf.LatencySpeedup latency = p.latency();
        assertEquals("request", latency.region());
        assertEquals(2, latency.instances());
        assertEquals(46.0 / 142, latency.lo(), 1e-12);
        assertEquals(54.0 / 138, latency.hi(), 1e-12);
        assertEquals(50.0 / 140, latency.truth(), 1e-12);
    }

    /**
     * A blocking send: t0 sends k1 at 10, but its write returns only when t1 reads it at 98 (t1 is
     * busy in "slow" until 95); t0 goes on at 100. A first message k0 (sent 5, received 7) sets the
     * latency floor 0 → 1 at 2 ns. Cutting "slow" by half (its 88 ns after the receive of k0:
     * [43, 45], truth 44) brings t1's read forward, and with it t0's return from the send — the
     * receive of k1 came before t0's next event, so that event waited for it.
     */
    @Test
    void aSenderBlockedUntilItsDataIsReadGainsWhenTheReaderDoes(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int t0 = p.stream(p.process("1/1", "1/1", 0));
        int t1 = p.stream(p.process("1/1", "1/1", 0));
        int w = p.region("w");
        int slow = p.region("slow");
        int after = p.region("after");
        int rest = p.region("rest");
        int send = p.region("send", "send");
        int receive = p.region("receive", "receive");
        point(p, t0, EventKind.ENTER, w, 0, NONE);
        point(p, t1, EventKind.ENTER, slow, 0, NONE);
        point(p, t0, EventKind.SEND, send, 5, 0);
        point(p, t1, EventKind.RECEIVE, receive, 7, 0);
        point(p, t0, EventKind.EXIT, w, 10, NONE);
        point(p, t0, EventKind.SEND, send, 10, 1);
        point(p, t1, EventKind.EXIT, slow, 95, NONE);
        point(p, t1, EventKind.RECEIVE, receive, 98, 1);
        point(p, t1, EventKind.ENTER, rest, 98, NONE);
        point(p, t0, EventKind.ENTER, after, 100, NONE);
        point(p, t1, EventKind.EXIT, rest, 120, NONE);
        point(p, t0, EventKind.EXIT, after, 150, NONE);
        WhatIf.Prediction cut = WhatIf.predict(p.write(), "slow", List.of(0.5), null, null).predictions().get(0);
        assertEquals(43, cut.gainTicksLo());
        assertEquals(45, cut.gainTicksHi());
        assertEquals(44 / 150.0, cut.truth(), 1e-12);
    }

    @Test
    void anUnknownRegionOrSpanIsAClearError(@TempDir Path dir) throws Exception {
        Profile profile = barrier(dir);
        ProfileException e = assertThrows(ProfileException.class,
                () -> WhatIf.predict(profile, "nope", List.of(0.5), null, null));
        assertEquals(true, e.getMessage().startsWith("no region named 'nope'"), e.getMessage());
        assertThrows(ProfileException.class, () -> WhatIf.predict(profile, "body[x]", List.of(0.5), null, null));
        assertThrows(IllegalArgumentException.class, () -> WhatIf.predict(profile, "body", List.of(1.5), null, null));
    }
}
