package dev.dprof.consolidator.analysis.messages;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.format.HandoffRegions;
import org.junit.jupiter.api.Test;

/** The handoff matching rule, case by case: ids are the caller's, edges target ← source. */
class HandoffMatcherTest {
    private static final long Q = HandoffRegions.FIRST_OBJECT;

    private static void assertEdges(HandoffMatcher.Matches m, long[] targets, long[] sources) {
        assertArrayEquals(targets, m.targets(), "targets");
        assertArrayEquals(sources, m.sources(), "sources");
    }

    @Test
    void aTakeMatchesThePutOfItsProcessWithEqualChannelAndKey() {
        HandoffMatcher h = new HandoffMatcher();
        h.put(0, Q, 1, 10);
        h.put(0, Q, 2, 11);
        h.take(0, Q, 2, 20);
        h.take(0, Q, 1, 21);
        h.take(0, Q + 1, 1, 22); // another channel: no put
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[] {20, 21}, new long[] {11, 10});
        assertEquals(2, m.matched());
        assertEquals(0, m.unmatchedPuts());
        assertEquals(1, m.unmatchedTakes());
        assertArrayEquals(new long[] {22}, m.unmatchedTakeIds());
    }

    @Test
    void aLongWaitIsNeverMatchedNorCountedAsAnUnmatchedTake() {
        HandoffMatcher h = new HandoffMatcher();
        h.put(0, Q, 3, 1);
        h.take(0, HandoffRegions.WAITED, 3, 2); // a wait of 3 ns, say: its key is no queue's
        h.take(0, HandoffRegions.WAITED, 5_000_000, 3);
        h.take(0, Q, 3, 4);
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[] {4}, new long[] {1});
        assertEquals(0, m.unmatchedTakes());
        assertEquals(0, m.unmatchedPuts());
        assertEquals(0, m.ambiguousKeys());
        assertEquals(2, h.size(), "the put and the take; the waits were not added");
    }

    @Test
    void severalTakesMayMatchOnePut() {
        HandoffMatcher h = new HandoffMatcher();
        h.put(0, Q, 7, 1);
        h.take(0, Q, 7, 3);
        h.take(0, Q, 7, 2);
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[] {2, 3}, new long[] {1, 1});
        assertEquals(0, m.unmatchedPuts());
        assertEquals(0, m.ambiguousKeys());
    }

    @Test
    void aKeyPutTwiceInAProcessIsAmbiguousAndGivesNoEdge() {
        HandoffMatcher h = new HandoffMatcher();
        h.put(0, Q, 5, 1);
        h.put(0, Q, 5, 2);
        h.put(0, Q, 5, 3);
        h.take(0, Q, 5, 4);
        h.put(1, Q, 5, 5); // the same key in another process is another key
        h.take(1, Q, 5, 6);
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[] {6}, new long[] {5});
        assertEquals(1, m.ambiguousKeys());
        assertEquals(0, m.unmatchedTakes());
        assertEquals(0, m.unmatchedPuts());
    }

    @Test
    void theSameChannelAndKeyInTwoProcessesNeverMatch() {
        HandoffMatcher h = new HandoffMatcher();
        h.put(0, Q, 1, 1);
        h.take(1, Q, 1, 2);
        h.firstEvent(1, 1234, 3);
        h.put(0, HandoffRegions.THREAD_START, 1234, 4);
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[0], new long[0]);
        assertEquals(2, m.unmatchedPuts());
        assertEquals(1, m.unmatchedTakes());
    }

    @Test
    void aStartedThreadsFirstEventTakesItsStartAndAThreadWithoutOneIsNoUnmatchedTake() {
        HandoffMatcher h = new HandoffMatcher();
        h.firstEvent(0, 1, 100); // main: nobody started it while recording
        h.put(0, HandoffRegions.THREAD_START, 2, 101);
        h.firstEvent(0, 2, 102);
        h.put(0, HandoffRegions.THREAD_START, 3, 103); // started, but never recorded an event
        h.put(0, HandoffRegions.THREAD_END, 2, 104);
        h.take(0, HandoffRegions.THREAD_END, 2, 105); // join
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[] {102, 105}, new long[] {101, 104});
        assertEquals(1, m.unmatchedPuts());
        assertEquals(0, m.unmatchedTakes());
    }

    @Test
    void aBackPressureTakeMatchesTheTakeThatFreedTheSpace() {
        HandoffMatcher h = new HandoffMatcher();
        h.put(0, Q, 1, 1);
        h.take(0, Q, 1, 2);
        h.take(0, Q | HandoffRegions.BACK_PRESSURE, 1, 3);
        h.take(0, Q | HandoffRegions.BACK_PRESSURE, 9, 4); // no take of key 9
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[] {2, 3}, new long[] {1, 2});
        assertEquals(1, m.unmatchedTakes());
        assertArrayEquals(new long[] {4}, m.unmatchedTakeIds());
    }

    @Test
    void aBackPressureTakeOfAKeyTakenTwiceIsAmbiguous() {
        HandoffMatcher h = new HandoffMatcher();
        h.put(0, Q, 1, 1);
        h.take(0, Q, 1, 2);
        h.take(0, Q, 1, 3);
        h.take(0, Q | HandoffRegions.BACK_PRESSURE, 1, 4);
        HandoffMatcher.Matches m = h.match();
        assertEdges(m, new long[] {2, 3}, new long[] {1, 1});
        assertEquals(1, m.ambiguousKeys());
        assertEquals(0, m.unmatchedTakes());
    }
}
