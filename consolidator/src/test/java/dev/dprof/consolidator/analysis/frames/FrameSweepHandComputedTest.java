package dev.dprof.consolidator.analysis.frames;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Possible-state timelines and the frame sweep on traces small enough to work out by hand. States:
 * 0 other, 1 body, 2 barrier; masks are bit sets of them (1 = {other}, 2 = {body}, 3 = {other, body},
 * 4 = {barrier}, 5 = {other, barrier}, 6 = {body, barrier}, 7 = all).
 */
class FrameSweepHandComputedTest {

    static long[] points(StateTimeline t) {
        long[] p = new long[t.points()];
        for (int i = 0; i < p.length; i++) {
            p[i] = t.at(i);
        }
        return p;
    }

    static int[] masks(StateTimeline t) {
        int[] m = new int[t.points()];
        for (int i = 0; i < m.length; i++) {
            m[i] = t.mask(i);
        }
        return m;
    }

    /** body [10, 20], barrier [50, 60], other [70, 75]: disjoint intervals, two states at a time at most. */
    static StateTimeline threadA() {
        return StateTimeline.of(new long[] {10, 50, 70}, new long[] {20, 60, 75}, new int[] {1, 2, 0}, 3, 0);
    }

    /** body [30, 40], barrier [80, 90]. */
    static StateTimeline threadB() {
        return StateTimeline.of(new long[] {30, 80}, new long[] {40, 90}, new int[] {1, 2}, 2, 0);
    }

    @Test
    void disjointTransitionsGiveTwoPossibleStatesInsideAnIntervalAndOneOutside() {
        StateTimeline a = threadA();
        assertArrayEquals(new long[] {Long.MIN_VALUE, 10, 20, 50, 60, 70, 75}, points(a));
        assertArrayEquals(new int[] {1, 3, 2, 6, 4, 5, 1}, masks(a));
    }

    @Test
    void overlappingTransitionsOfOneThreadCombine() {
        // body [10, 40], then barrier [20, 30]: the barrier's end at 30 proves the body enter happened too.
        StateTimeline t = StateTimeline.of(new long[] {10, 20}, new long[] {40, 30}, new int[] {1, 2}, 2, 0);
        assertArrayEquals(new long[] {Long.MIN_VALUE, 10, 20, 30}, points(t));
        assertArrayEquals(new int[] {1, 3, 7, 4}, masks(t));
    }

    @Test
    void exactTimesLeaveNoUncertainty() {
        StateTimeline t = StateTimeline.of(new long[] {5, 105, 113, 125}, new long[] {5, 105, 113, 125},
                new int[] {1, 0, 2, 0}, 4, 0);
        assertArrayEquals(new long[] {Long.MIN_VALUE, 5, 105, 113, 125}, points(t));
        assertArrayEquals(new int[] {1, 2, 1, 4, 1}, masks(t));
    }

    @Test
    void theSweepHandsOutEveryStretchWithBothThreadsMasks() {
        List<long[]> got = new ArrayList<>();
        FrameSweep.sweep(List.of(threadA(), threadB()), 0, 100, (from, to, m) -> got.add(new long[] {from, to, m[0], m[1]}));
        long[][] expected = {
            {0, 10, 1, 1}, {10, 20, 3, 1}, {20, 30, 2, 1}, {30, 40, 2, 3}, {40, 50, 2, 2}, {50, 60, 6, 2},
            {60, 70, 4, 2}, {70, 75, 5, 2}, {75, 80, 1, 2}, {80, 90, 1, 6}, {90, 100, 1, 4},
        };
        assertEquals(expected.length, got.size(), "stretches");
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], got.get(i), "stretch " + i);
        }
    }

    @Test
    void aSweepStartingInsideTheTimelinesStartsWithTheirStateThere() {
        List<long[]> got = new ArrayList<>();
        FrameSweep.sweep(List.of(threadA(), threadB()), 55, 78, (from, to, m) -> got.add(new long[] {from, to, m[0], m[1]}));
        long[][] expected = {{55, 60, 6, 2}, {60, 70, 4, 2}, {70, 75, 5, 2}, {75, 78, 1, 2}};
        assertEquals(expected.length, got.size());
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], got.get(i), "stretch " + i);
        }
    }

    /**
     * "A in body while B in barrier" over [0, 100): certainly nowhere here, possibly where A's mask has the
     * body and B's the barrier — [50, 60) has A in {body, barrier} but B only in body: no; [80, 90) has
     * B in {body, barrier} but A only other: no. And "both in body": certain [40, 50) (10), possible
     * [30, 60) (30: B is possibly in the body from 30, certainly 40..80; A certainly 20..50, possibly to 60).
     */
    @Test
    void certainAndPossibleTimeOfAGlobalState() {
        long[] bothBody = new long[2];
        long[] crossed = new long[2];
        FrameSweep.sweep(List.of(threadA(), threadB()), 0, 100, (from, to, m) -> {
            if (m[0] == 2 && m[1] == 2) {
                bothBody[0] += to - from;
            }
            if ((m[0] & 2) != 0 && (m[1] & 2) != 0) {
                bothBody[1] += to - from;
            }
            if (m[0] == 2 && m[1] == 4) {
                crossed[0] += to - from;
            }
            if ((m[0] & 2) != 0 && (m[1] & 4) != 0) {
                crossed[1] += to - from;
            }
        });
        assertArrayEquals(new long[] {10, 30}, bothBody);
        assertArrayEquals(new long[] {0, 0}, crossed);
    }

    @Test
    void aStretchIsAFrameOnlyWhenEveryThreadsStateIsKnown() {
        assertFalse(FrameSweep.inAggregatedEvent(new int[] {1, 2, 4}));
        assertTrue(FrameSweep.inAggregatedEvent(new int[] {1, 6, 4}));
    }
}
