package dev.dprof.consolidator.analysis.causal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The what-if and the critical path across handoffs between threads of one process, on DAGs
 * worked out on paper, one per kind of handoff. As in {@link CausalHandComputedTest}: reference
 * ticks are nanoseconds, clocks run at the reference's rate and every event is a point, so
 * {@code Δk} ticks of program order weigh {@code [Δk − 1, Δk + 1]} and a share {@code f·w} is
 * rounded out. Threads of one process are streams of one process; a {@link TinyProfile} stream's
 * thread id is {@code 1000 + its index}.
 */
class HandoffHandComputedTest {
    private static final String QUEUE = HandoffRegions.siteName(HandoffRegions.Kind.QUEUE, "LinkedBlockingQueue",
            "Pipeline.<init>:42");
    private static final String POOL = HandoffRegions.siteName(HandoffRegions.Kind.QUEUE, "LinkedBlockingQueue",
            "ThreadPoolExecutor.<init>:1");
    private static final String FUTURE = HandoffRegions.siteName(HandoffRegions.Kind.FUTURE, "CompletableFuture",
            "Client.call:7");
    private static final String THREADS = HandoffRegions.threadsName();
    private static final long CHANNEL = HandoffRegions.FIRST_OBJECT;

    private static void point(TinyProfile p, int stream, EventKind kind, int region, long t) {
        p.event(stream, kind, region, t, t, t, t, 0, 0);
    }

    private static void handoff(TinyProfile p, int stream, EventKind kind, int site, long t, long channel, long key) {
        p.event(stream, kind, site, t, t, t, t, channel, key);
    }

    private static WhatIf.Prediction cut(Profile profile, String region, double fraction) throws Exception {
        return WhatIf.predict(profile, region, List.of(fraction), null, null).predictions().get(0);
    }

    private static void assertGain(WhatIf.Prediction p, long lo, long hi, double truth) {
        assertEquals(lo, p.gainTicksLo(), p.region() + " × " + p.fraction());
        assertEquals(hi, p.gainTicksHi(), p.region() + " × " + p.fraction());
        assertEquals(truth, p.truth(), 1e-12, p.region() + " × " + p.fraction());
    }

    private static void assertShare(CriticalPath.Result r, String name, long lo, long hi) {
        CriticalPath.Share s = r.shares().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        assertEquals(lo, s.ticksLo(), name);
        assertEquals(hi, s.ticksHi(), name);
    }

    /**
     * A queue: the producer works 100 ns and puts; the consumer, blocked in take since 0, takes at
     * 105 (floor 5) and works 50 ns.
     * <pre>
     * t0  ENTER produce 0, EXIT produce 100, PUT q 100
     * t1  ENTER serve 0 ........ TAKE q 105, ENTER consume 105, EXIT consume 155, EXIT serve 155
     * </pre>
     */
    @Test
    void aQueueTakeWaitsForItsPut(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int produce = p.region("produce");
        int serve = p.region("serve");
        int consume = p.region("consume");
        int queue = p.region(QUEUE, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, produce, 0);
        point(p, t1, EventKind.ENTER, serve, 0);
        point(p, t0, EventKind.EXIT, produce, 100);
        handoff(p, t0, EventKind.HANDOFF_PUT, queue, 100, CHANNEL, 1);
        handoff(p, t1, EventKind.HANDOFF_TAKE, queue, 105, CHANNEL, 1);
        point(p, t1, EventKind.ENTER, consume, 105);
        point(p, t1, EventKind.EXIT, consume, 155);
        point(p, t1, EventKind.EXIT, serve, 155);
        Profile profile = p.write();
        // produce [99, 101] at half: [49, 51]; the take follows the put: R(take) = 105 − max(0, 105 − R).
        assertGain(cut(profile, "produce", 0.5), 49, 51, 50 / 155.0);
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertEquals(155, r.lengthTicksLo());
        assertShare(r, "produce", 99, 101);
        assertShare(r, QUEUE, 5, 5);
        assertShare(r, "consume", 49, 51);
        assertShare(r, "serve", 49, 53);
        assertShare(r, CriticalPath.OUTSIDE, 0, 1);
        assertShare(r, CriticalPath.COMMUNICATION, 0, 0);
        assertEquals(1, r.handoffsOnPathLo());
        assertEquals(1, r.handoffsOnPathHi());
        assertNull(r.incomplete());
    }

    /**
     * An executor: main submits two tasks (puts at 10 and 50); the worker takes the first at 12
     * (floor 2) and runs it until 130, so the second, submitted long before, starts only at 132.
     * <pre>
     * t0  ENTER prepare 0, EXIT 10, PUT 1 10, ENTER prepare 10, EXIT 50, PUT 2 50
     * t1  ENTER getTask 0, TAKE 1 12, EXIT getTask 12, ENTER task 12, EXIT task 130,
     *     ENTER getTask 130, TAKE 2 132, EXIT getTask 132, ENTER task 132, EXIT task 200
     * </pre>
     */
    private static Profile executor(Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int prepare = p.region("prepare");
        int getTask = p.region("getTask");
        int task = p.region("task");
        int pool = p.region(POOL, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, prepare, 0);
        point(p, t1, EventKind.ENTER, getTask, 0);
        point(p, t0, EventKind.EXIT, prepare, 10);
        handoff(p, t0, EventKind.HANDOFF_PUT, pool, 10, CHANNEL, 1);
        point(p, t0, EventKind.ENTER, prepare, 10);
        handoff(p, t1, EventKind.HANDOFF_TAKE, pool, 12, CHANNEL, 1);
        point(p, t1, EventKind.EXIT, getTask, 12);
        point(p, t1, EventKind.ENTER, task, 12);
        point(p, t0, EventKind.EXIT, prepare, 50);
        handoff(p, t0, EventKind.HANDOFF_PUT, pool, 50, CHANNEL, 2);
        point(p, t1, EventKind.EXIT, task, 130);
        point(p, t1, EventKind.ENTER, getTask, 130);
        handoff(p, t1, EventKind.HANDOFF_TAKE, pool, 132, CHANNEL, 2);
        point(p, t1, EventKind.EXIT, getTask, 132);
        point(p, t1, EventKind.ENTER, task, 132);
        point(p, t1, EventKind.EXIT, task, 200);
        return p.write();
    }

    @Test
    void anExecutorsTaskStartsAfterItsSubmissionAndItsWorkersPreviousTask(@TempDir Path dir) throws Exception {
        Profile profile = executor(dir);
        // The tasks: [117, 119] and [67, 69]. At half, the second take still follows the worker:
        // R(take 2) = 130 − max(130 − R, 50 + 2) = min(R, 78) = [58, 60]; then + [33, 35].
        assertGain(cut(profile, "task", 0.5), 91, 95, 93 / 200.0);
        // At zero the submission becomes last: the second task cannot start before 52 + 2.
        assertGain(cut(profile, "task", 1.0), 145, 147, 146 / 200.0);
        // Submitting sooner helps only the first task ([9, 11] sooner, and the worker with it): the
        // second's submission, [48, 52] sooner, finds the worker busy either way.
        assertGain(cut(profile, "prepare", 1.0), 9, 11, 10 / 200.0);
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertShare(r, "prepare", 9, 11);
        assertShare(r, POOL, 2, 2);
        assertShare(r, "task", 184, 188);
        assertShare(r, "getTask", 1, 5);
        assertShare(r, CriticalPath.OUTSIDE, 0, 4);
        assertEquals(1, r.handoffsOnPathLo());
        assertEquals(1, r.handoffsOnPathHi());
    }

    /**
     * A future completed once and joined by two threads: the completer computes 80 ns and puts;
     * waiter A takes at 83 and works 37 ns, waiter B takes at 81 and works 19 (floor 1).
     */
    @Test
    void severalTakesOfOneFutureEachWaitForItsCompletion(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int t2 = p.stream(process);
        int compute = p.region("compute");
        int get = p.region("get");
        int useA = p.region("useA");
        int useB = p.region("useB");
        int future = p.region(FUTURE, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, compute, 0);
        point(p, t1, EventKind.ENTER, get, 0);
        point(p, t2, EventKind.ENTER, get, 0);
        point(p, t0, EventKind.EXIT, compute, 80);
        handoff(p, t0, EventKind.HANDOFF_PUT, future, 80, CHANNEL + 2, 1);
        handoff(p, t2, EventKind.HANDOFF_TAKE, future, 81, CHANNEL + 2, 1);
        point(p, t2, EventKind.EXIT, get, 81);
        point(p, t2, EventKind.ENTER, useB, 81);
        handoff(p, t1, EventKind.HANDOFF_TAKE, future, 83, CHANNEL + 2, 1);
        point(p, t1, EventKind.EXIT, get, 83);
        point(p, t1, EventKind.ENTER, useA, 83);
        point(p, t2, EventKind.EXIT, useB, 100);
        point(p, t1, EventKind.EXIT, useA, 120);
        Profile profile = p.write();
        // compute [79, 81] at half: [39, 41], and both waiters follow.
        assertGain(cut(profile, "compute", 0.5), 39, 41, 40 / 120.0);
        assertGain(cut(profile, "useB", 1.0), 0, 0, 0);
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertEquals(120, r.lengthTicksLo());
        assertShare(r, "compute", 79, 81);
        assertShare(r, FUTURE, 3, 3);
        assertShare(r, "get", 0, 1);
        assertShare(r, "useA", 36, 38);
        assertShare(r, "useB", 0, 0);
        assertEquals(1, r.handoffsOnPathHi());
    }

    /**
     * Thread.start: the parent sets up for 60 ns and starts the child (key: the child's id, 1001),
     * whose first event comes at 62 (floor 2); the child works 100 ns, the parent 40 more.
     */
    @Test
    void aStartedThreadsFirstEventWaitsForItsStart(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int setup = p.region("setup");
        int own = p.region("own");
        int work = p.region("work");
        int threads = p.region(THREADS, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, setup, 0);
        point(p, t0, EventKind.EXIT, setup, 60);
        handoff(p, t0, EventKind.HANDOFF_PUT, threads, 60, HandoffRegions.THREAD_START, 1001);
        point(p, t0, EventKind.ENTER, own, 60);
        point(p, t1, EventKind.ENTER, work, 62);
        point(p, t0, EventKind.EXIT, own, 100);
        point(p, t1, EventKind.EXIT, work, 162);
        Profile profile = p.write();
        // setup [59, 61] at half: [29, 31]; the child starts and ends that much sooner. Without the
        // start edge its first event would be fixed and the gain 0.
        assertGain(cut(profile, "setup", 0.5), 29, 31, 30 / 162.0);
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertEquals(162, r.lengthTicksLo());
        assertShare(r, "setup", 59, 61);
        assertShare(r, THREADS, 2, 2);
        assertShare(r, "work", 99, 101);
        assertShare(r, "own", 0, 0);
        assertShare(r, CriticalPath.OUTSIDE, 0, 1);
        assertEquals(1, r.handoffsOnPathLo());
    }

    /**
     * A thread's end and join: the child (started before recording: its first event stays where it
     * is) works from 12 to 150 and puts its end; main, waiting in join since 10, takes it at 152
     * (floor 2) and reports for 18 ns.
     */
    @Test
    void aJoinReturnsAfterTheThreadEnded(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int spawn = p.region("spawn");
        int joinWait = p.region("join");
        int report = p.region("report");
        int work = p.region("work");
        int threads = p.region(THREADS, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, spawn, 0);
        point(p, t0, EventKind.EXIT, spawn, 10);
        point(p, t0, EventKind.ENTER, joinWait, 10);
        point(p, t1, EventKind.ENTER, work, 12);
        point(p, t1, EventKind.EXIT, work, 150);
        handoff(p, t1, EventKind.HANDOFF_PUT, threads, 150, HandoffRegions.THREAD_END, 1001);
        handoff(p, t0, EventKind.HANDOFF_TAKE, threads, 152, HandoffRegions.THREAD_END, 1001);
        point(p, t0, EventKind.EXIT, joinWait, 152);
        point(p, t0, EventKind.ENTER, report, 152);
        point(p, t0, EventKind.EXIT, report, 170);
        Profile profile = p.write();
        // work [137, 139] at half: [68, 70].
        assertGain(cut(profile, "work", 0.5), 68, 70, 69 / 170.0);
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertShare(r, "work", 137, 139);
        assertShare(r, THREADS, 2, 2);
        assertShare(r, "join", 0, 1);
        assertShare(r, "report", 17, 19);
        // 12 before the child's first event, then [0, 1] twice.
        assertShare(r, CriticalPath.OUTSIDE, 12, 14);
        assertShare(r, "spawn", 0, 0);
    }

    /**
     * Back-pressure: a queue of one. The producer puts e1 at 10, produces until 20 and blocks putting
     * e2 until the consumer, busy until 100, takes e1: it records the take that freed the space
     * (key 1, channel | BACK_PRESSURE) at 102, puts e2 and goes on until 150. The consumer uses e1
     * until 110 and takes e2 at 112. Floors: the site's smallest lag, 102 − 100 = 2.
     */
    private static Profile backPressure(Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int produce = p.region("produce");
        int more = p.region("more");
        int busy = p.region("busy");
        int consume = p.region("consume");
        int queue = p.region(QUEUE, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, produce, 0);
        point(p, t1, EventKind.ENTER, busy, 0);
        point(p, t0, EventKind.EXIT, produce, 10);
        handoff(p, t0, EventKind.HANDOFF_PUT, queue, 10, CHANNEL, 1);
        point(p, t0, EventKind.ENTER, produce, 10);
        point(p, t0, EventKind.EXIT, produce, 20);
        point(p, t1, EventKind.EXIT, busy, 100);
        handoff(p, t1, EventKind.HANDOFF_TAKE, queue, 100, CHANNEL, 1);
        point(p, t1, EventKind.ENTER, consume, 100);
        handoff(p, t0, EventKind.HANDOFF_TAKE, queue, 102, CHANNEL | HandoffRegions.BACK_PRESSURE, 1);
        handoff(p, t0, EventKind.HANDOFF_PUT, queue, 102, CHANNEL, 2);
        point(p, t0, EventKind.ENTER, more, 102);
        point(p, t1, EventKind.EXIT, consume, 110);
        handoff(p, t1, EventKind.HANDOFF_TAKE, queue, 112, CHANNEL, 2);
        point(p, t1, EventKind.ENTER, consume, 112);
        point(p, t1, EventKind.EXIT, consume, 120);
        point(p, t0, EventKind.EXIT, more, 150);
        return p.write();
    }

    @Test
    void aPutBlockedOnAFullQueueWaitsForTheTakeThatFreedTheSpace(@TempDir Path dir) throws Exception {
        Profile profile = backPressure(dir);
        // busy [99, 101] at half: [49, 51] → the take of e1 (min(R, 100 − 12)), the producer's
        // back-pressure take (min(R, 102 − 20)) and everything after it.
        assertGain(cut(profile, "busy", 0.5), 49, 51, 50 / 150.0);
        // At zero the producer's own work is last: it left produce at 20, so the gain stops at 82.
        assertGain(cut(profile, "busy", 1.0), 82, 82, 82 / 150.0);
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertEquals(150, r.lengthTicksLo());
        assertShare(r, "busy", 99, 101);
        assertShare(r, QUEUE, 2, 2);
        assertShare(r, "more", 47, 49);
        assertShare(r, "produce", 0, 0);
        assertShare(r, CriticalPath.OUTSIDE, 0, 3);
        assertEquals(1, r.handoffsOnPathLo());
        assertEquals(1, r.handoffsOnPathHi());
    }

    /**
     * The same queue as {@link #aQueueTakeWaitsForItsPut} with the put not recorded: the consumer's
     * take has nothing to wait for, the producer's work gains nothing, and the note says so.
     */
    @Test
    void aTakeWithoutItsPutIsNoJoinAndMakesTheNote(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int produce = p.region("produce");
        int serve = p.region("serve");
        int consume = p.region("consume");
        int queue = p.region(QUEUE, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, produce, 0);
        point(p, t1, EventKind.ENTER, serve, 0);
        point(p, t0, EventKind.EXIT, produce, 100);
        handoff(p, t1, EventKind.HANDOFF_TAKE, queue, 105, CHANNEL, 1);
        point(p, t1, EventKind.ENTER, consume, 105);
        point(p, t1, EventKind.EXIT, consume, 155);
        point(p, t1, EventKind.EXIT, serve, 155);
        Profile profile = p.write();
        assertGain(cut(profile, "produce", 0.5), 0, 0, 0);
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertEquals(0, r.handoffsOnPathHi());
        Incomplete note = r.incomplete();
        assertNotNull(note);
        assertEquals(List.of("1 take without a recorded put, at " + QUEUE), note.reasons());
        assertEquals(List.of("t1 (host0-100)"), note.threads());
        assertTrue(note.suggestion().contains("kind: handoff"), note.suggestion());
        assertTrue(note.note().startsWith("The causal picture is incomplete: 1 take without a recorded put"),
                note.note());
        assertNotNull(WhatIf.predict(profile, "produce", List.of(0.5), null, null).incomplete());
    }

    /**
     * A join of a thread that recorded nothing in its process (a shutdown hook whose end the agent's
     * last drain missed): counted as a take without its put, but no region could explain it, so it
     * makes no note when the path lies in regions.
     */
    @Test
    void aJoinOfAThreadThatRecordedNothingMakesNoNote(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int work = p.region("work");
        int threads = p.region(HandoffRegions.threadsName(), HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, work, 0);
        point(p, t0, EventKind.EXIT, work, 100);
        handoff(p, t0, EventKind.HANDOFF_TAKE, threads, 101, HandoffRegions.THREAD_END, 4242);
        Profile profile = p.write();
        CriticalPath.Result r = CriticalPath.compute(profile);
        assertNull(r.incomplete(), String.valueOf(r.incomplete()));
        assertEquals(1, HandoffEdges.of(profile).matches().unmatchedTakes(), "still counted");
        assertEquals(0, HandoffEdges.of(profile).unexplainedTakes());
    }

    /**
     * Two threads of one process that hand work over without any recorded handoff: the path runs
     * through the consumer's long stretch outside regions, so the note names that thread and where
     * its gap was; recording the handoff (with its put) makes the note go.
     */
    @Test
    void mostOfThePathOutsideRegionsMakesTheNoteAndARecordedHandoffRemovesIt(@TempDir Path dir) throws Exception {
        for (boolean recorded : new boolean[] {false, true}) {
            TinyProfile p = new TinyProfile(java.nio.file.Files.createDirectories(
                    dir.resolve(recorded ? "recorded" : "unrecorded")), true);
            int process = p.process("1/1", "1/1", 0);
            int t0 = p.stream(process);
            int t1 = p.stream(process);
            int produce = p.region("produce");
            int consume = p.region("consume");
            int queue = p.region(QUEUE, HandoffRegions.REGION_KIND);
            point(p, t0, EventKind.ENTER, produce, 0);
            point(p, t1, EventKind.EXIT, consume, 0);
            point(p, t0, EventKind.EXIT, produce, 20);
            if (recorded) {
                handoff(p, t0, EventKind.HANDOFF_PUT, queue, 20, CHANNEL, 1);
                handoff(p, t1, EventKind.HANDOFF_TAKE, queue, 100, CHANNEL, 1);
            }
            point(p, t1, EventKind.ENTER, consume, 100);
            point(p, t1, EventKind.EXIT, consume, 120);
            CriticalPath.Result r = CriticalPath.compute(p.write());
            if (recorded) {
                // The take waited for the put at 20 (floor 80): the path now crosses the queue, whose
                // 80 ns are the queue's, not "outside".
                assertNull(r.incomplete(), String.valueOf(r.incomplete()));
                assertShare(r, QUEUE, 80, 80);
            } else {
                Incomplete note = r.incomplete();
                assertNotNull(note);
                assertTrue(note.outsideShareHi() > 0.5, note.toString());
                assertEquals(List.of("t1 (host0-100)"), note.threads());
                assertTrue(note.reasons().get(1).contains("t1 after 'consume' (exit), before 'consume' (enter)"),
                        note.reasons().toString());
                assertTrue(note.suggestion().contains("- name: \"t1 work\""), note.suggestion());
            }
        }
    }
}
