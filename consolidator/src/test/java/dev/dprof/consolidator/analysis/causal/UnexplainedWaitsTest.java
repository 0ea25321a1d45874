package dev.dprof.consolidator.analysis.causal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.analysis.messages.UnexplainedWaits;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's long waits ({@code HandoffRegions.WAITED}) in hand-built profiles: which ones a
 * recorded edge explains (the thread's next event that is not a wait is a take, a receive or a
 * barrier's exit) and which not, counted per thread and site; the incomplete note names the
 * unexplained ones by thread and method and suggests a take on that method; and the causal replay
 * is the same with and without them. Reference ticks are nanoseconds, as in
 * {@link HandoffHandComputedTest}; a {@link TinyProfile} stream's name is {@code t<index>}.
 */
class UnexplainedWaitsTest {
    private static final String AWAIT = HandoffRegions.waitSiteName("org.example.Pipeline.awaitItem:57");
    private static final String LOCK = HandoffRegions.waitSiteName("org.example.Journal$Writer.append:12");
    private static final String QUEUE = HandoffRegions.siteName(HandoffRegions.Kind.QUEUE, "LinkedBlockingQueue",
            "Pipeline.<init>:42");
    private static final long CHANNEL = HandoffRegions.FIRST_OBJECT;
    private static final long MS = 1_000_000;

    private static void point(TinyProfile p, int stream, EventKind kind, int region, long t) {
        p.event(stream, kind, region, t, t, t, t, 0, 0);
    }

    private static void take(TinyProfile p, int stream, int site, long t, long channel, long key) {
        p.event(stream, EventKind.HANDOFF_TAKE, site, t, t, t, t, channel, key);
    }

    private static void waited(TinyProfile p, int stream, int site, long t, long nanos) {
        take(p, stream, site, t, HandoffRegions.WAITED, nanos);
    }

    /**
     * t1 waits three times: once before a queue's take (explained by its edge), twice in a row
     * before a take whose put is missing (explained: that take's own count speaks for them), and
     * once before entering a region (unexplained); t2's wait is its last event (unexplained).
     */
    @Test
    void aWaitIsExplainedByTheNextEventThatIsNotAWait(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int t2 = p.stream(process);
        int work = p.region("work");
        int queue = p.region(QUEUE, HandoffRegions.REGION_KIND);
        int await = p.region(AWAIT, HandoffRegions.REGION_KIND);
        int lock = p.region(LOCK, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, work, 0);
        p.event(t0, EventKind.HANDOFF_PUT, queue, 10, 10, 10, 10, CHANNEL, 1);
        waited(p, t1, await, 12, 12 * MS);
        take(p, t1, queue, 13, CHANNEL, 1);
        waited(p, t1, await, 20, 2 * MS);
        waited(p, t1, lock, 21, 3 * MS);
        take(p, t1, queue, 22, CHANNEL, 99); // no put
        waited(p, t1, await, 30, 5 * MS);
        point(p, t1, EventKind.ENTER, work, 31);
        point(p, t1, EventKind.EXIT, work, 40);
        point(p, t0, EventKind.EXIT, work, 50);
        point(p, t2, EventKind.ENTER, work, 51);
        point(p, t2, EventKind.EXIT, work, 52);
        waited(p, t2, lock, 60, 7 * MS);
        Profile profile = p.write();

        HandoffEdges edges = HandoffEdges.of(profile);
        assertEquals(1, edges.matches().matched(), "the waits match nothing");
        assertEquals(1, edges.matches().unmatchedTakes(), "the waits are no unmatched takes");
        UnexplainedWaits waits = edges.unexplainedWaits();
        assertEquals(3, waits.explained());
        assertEquals(new UnexplainedWaits.Tally(2, 12 * MS), waits.total());
        assertEquals(Map.of(t1, new UnexplainedWaits.Tally(1, 5 * MS), t2, new UnexplainedWaits.Tally(1, 7 * MS)),
                waits.byStream());
        assertEquals(Map.of(await, new UnexplainedWaits.Tally(1, 5 * MS)), waits.sitesOf(t1));
        assertEquals(Map.of(lock, new UnexplainedWaits.Tally(1, 7 * MS)), waits.sitesOf(t2));
    }

    @Test
    void aReceiveOrABarrierExitExplainsAWait(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int receive = p.region("recv", "receive");
        int barrier = p.region("sync", "barrier");
        int await = p.region(AWAIT, HandoffRegions.REGION_KIND);
        waited(p, t0, await, 5, 2 * MS);
        p.event(t0, EventKind.RECEIVE, receive, 6, 6, 6, 6, 1, 1);
        point(p, t0, EventKind.BARRIER_ENTER, barrier, 7);
        waited(p, t0, await, 8, 2 * MS);
        point(p, t0, EventKind.BARRIER_EXIT, barrier, 9);
        UnexplainedWaits waits = HandoffEdges.of(p.write()).unexplainedWaits();
        assertEquals(2, waits.explained());
        assertEquals(0, waits.total().waits());
    }

    /**
     * A consumer that waits on a condition with no recorded sender: the note names the thread and
     * the method it waited in, says how many waits and how long, and suggests a take on that very
     * method (class and method filled in from the site) and a put on what wakes it (placeholders).
     * Only wait events: the path lies in regions, so the waits alone make the note; without them,
     * there is none.
     */
    @Test
    void theNoteNamesTheThreadAndTheMethodWhereItWaited(@TempDir Path dir) throws Exception {
        for (boolean withWaits : new boolean[] {false, true}) {
            TinyProfile p = new TinyProfile(Files.createDirectories(dir.resolve(withWaits ? "waits" : "none")), true);
            int process = p.process("1/1", "1/1", 0);
            int t0 = p.stream(process);
            int t1 = p.stream(process);
            int produce = p.region("produce");
            int consume = p.region("consume");
            int await = p.region(AWAIT, HandoffRegions.REGION_KIND);
            int lock = p.region(LOCK, HandoffRegions.REGION_KIND);
            point(p, t0, EventKind.ENTER, produce, 0);
            point(p, t1, EventKind.ENTER, consume, 0);
            point(p, t0, EventKind.EXIT, produce, 100);
            if (withWaits) {
                waited(p, t1, await, 100, 3 * MS);
                waited(p, t1, lock, 100, MS);
            }
            point(p, t1, EventKind.EXIT, consume, 100);
            point(p, t1, EventKind.ENTER, consume, 101);
            if (withWaits) {
                waited(p, t1, await, 140, 2 * MS);
            }
            point(p, t1, EventKind.EXIT, consume, 150);
            CriticalPath.Result r = CriticalPath.compute(p.write());
            if (!withWaits) {
                assertNull(r.incomplete(), String.valueOf(r.incomplete()));
                continue;
            }
            Incomplete note = r.incomplete();
            assertNotNull(note);
            assertEquals(List.of("3 waits of at least 1 ms with no recorded sender (6.0 ms in all): t1 in"
                    + " Pipeline.awaitItem:57, Journal$Writer.append:12"), note.reasons());
            assertEquals(List.of("t1 (host0-100)"), note.threads());
            assertEquals(List.of(new Incomplete.Waiting("t1 (host0-100)", 3, 6.0, List.of(
                    new Incomplete.WaitSite(AWAIT, "org.example.Pipeline", "awaitItem", 57, 2, 5.0),
                    new Incomplete.WaitSite(LOCK, "org.example.Journal$Writer", "append", 12, 1, 1.0)))),
                    note.waits());
            String yaml = note.suggestion();
            assertTrue(yaml.contains("""
                      - name: "wait in Pipeline.awaitItem take"
                        class: org.example.Pipeline
                        method: awaitItem
                        kind: handoff
                        side: take
                        channel: {const: "wait in Pipeline.awaitItem"}
                    """), yaml);
            assertTrue(yaml.contains("""
                      - name: "wait in Journal$Writer.append put"
                        class: <the class whose method wakes it>
                    """), yaml);
            assertTrue(yaml.contains("# t1 waited 2 times (5.0 ms) in org.example.Pipeline.awaitItem (line 57)"), yaml);
            assertTrue(note.note().startsWith("The causal picture is incomplete: 3 waits of at least 1 ms"), note.note());
        }
    }

    /** Waits beyond the agent's walks have a coarse site that names no method: named, but no YAML for it. */
    @Test
    void aWaitWhoseSiteWasNotWalkedIsNamedWithoutYaml(@TempDir Path dir) throws Exception {
        String coarse = HandoffRegions.waitSiteName("(sites not walked: more than 200 new per second)");
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int work = p.region("work");
        int site = p.region(coarse, HandoffRegions.REGION_KIND);
        point(p, t0, EventKind.ENTER, work, 0);
        waited(p, t0, site, 10, 4 * MS);
        point(p, t0, EventKind.EXIT, work, 20);
        Incomplete note = CriticalPath.compute(p.write()).incomplete();
        assertNotNull(note);
        assertEquals(List.of(new Incomplete.WaitSite(coarse, null, null, -1, 1, 4.0)), note.waits().get(0).sites());
        assertTrue(!note.suggestion().contains("wait in"), note.suggestion());
    }

    /**
     * The replay ignores the waits: the same DAG with and without them (a queue handoff and work
     * on both threads) gives the same what-if bounds and the same critical-path shares.
     */
    @Test
    void theReplayIsTheSameWithAndWithoutWaits(@TempDir Path dir) throws Exception {
        CriticalPath.Result[] paths = new CriticalPath.Result[2];
        WhatIf.Prediction[] cuts = new WhatIf.Prediction[2];
        for (int with = 0; with < 2; with++) {
            TinyProfile p = new TinyProfile(Files.createDirectories(dir.resolve("run" + with)), true);
            int process = p.process("1/1", "1/1", 0);
            int t0 = p.stream(process);
            int t1 = p.stream(process);
            int produce = p.region("produce");
            int consume = p.region("consume");
            int queue = p.region(QUEUE, HandoffRegions.REGION_KIND);
            int await = p.region(AWAIT, HandoffRegions.REGION_KIND);
            point(p, t0, EventKind.ENTER, produce, 0);
            point(p, t1, EventKind.ENTER, consume, 0);
            point(p, t1, EventKind.EXIT, consume, 10);
            point(p, t0, EventKind.EXIT, produce, 100);
            p.event(t0, EventKind.HANDOFF_PUT, queue, 100, 100, 100, 100, CHANNEL, 1);
            if (with == 1) {
                waited(p, t1, await, 104, 94);
            }
            take(p, t1, queue, 105, CHANNEL, 1);
            point(p, t1, EventKind.ENTER, consume, 105);
            if (with == 1) {
                waited(p, t1, await, 130, 2 * MS);
            }
            point(p, t1, EventKind.EXIT, consume, 155);
            Profile profile = p.write();
            paths[with] = CriticalPath.compute(profile);
            cuts[with] = WhatIf.predict(profile, "produce", List.of(0.5), null, null).predictions().get(0);
        }
        assertEquals(cuts[0].gainTicksLo(), cuts[1].gainTicksLo());
        assertEquals(cuts[0].gainTicksHi(), cuts[1].gainTicksHi());
        assertEquals(paths[0].shares(), paths[1].shares());
        assertNull(paths[0].incomplete());
        assertNotNull(paths[1].incomplete(), "the wait inside consume has no sender");
    }
}
