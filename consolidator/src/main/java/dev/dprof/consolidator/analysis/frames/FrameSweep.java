package dev.dprof.consolidator.analysis.frames;

import java.util.List;
import java.util.PriorityQueue;

/**
 * The aggregated-event view of DProf §5.1, generalized: sweeps the possible-state timelines of
 * all threads together and hands out every stretch of time over which no thread's possible
 * states change. A stretch where every thread's state is known is a frame; a stretch where some
 * thread is mid-transition belongs to an aggregated event (the overlap of event intervals).
 * Queries decide per stretch whether their global state S holds certainly or possibly, so
 * {@code time(S) ∈ [Σ certain, Σ possible]} — sound, since the true state at every moment is one
 * of the combinations the masks allow.
 */
public final class FrameSweep {
    /** Receives the stretches in time order. */
    public interface Visitor {
        /** Over [from, to) thread i can be in the states of {@code masks[i]}. */
        void stretch(long from, long to, int[] masks);
    }

    private FrameSweep() {
    }

    /** Sweeps the timelines over [from, to). */
    public static void sweep(List<StateTimeline> timelines, long from, long to, Visitor visitor) {
        int n = timelines.size();
        int[] masks = new int[n];
        int[] next = new int[n];
        PriorityQueue<long[]> changes = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
        for (int i = 0; i < n; i++) {
            StateTimeline t = timelines.get(i);
            int k = 0;
            while (k + 1 < t.points() && t.at(k + 1) <= from) {
                k++;
            }
            masks[i] = t.mask(k);
            next[i] = k + 1;
            if (next[i] < t.points()) {
                changes.add(new long[] {t.at(next[i]), i});
            }
        }
        long position = from;
        while (position < to) {
            long boundary = changes.isEmpty() ? to : Math.min(to, changes.peek()[0]);
            if (boundary > position) {
                visitor.stretch(position, boundary, masks);
                position = boundary;
            }
            while (!changes.isEmpty() && changes.peek()[0] <= position) {
                long[] c = changes.poll();
                int i = (int) c[1];
                StateTimeline t = timelines.get(i);
                masks[i] = t.mask(next[i]);
                next[i]++;
                if (next[i] < t.points()) {
                    changes.add(new long[] {t.at(next[i]), i});
                }
            }
            if (changes.isEmpty() && position < to) {
                visitor.stretch(position, to, masks);
                position = to;
            }
        }
    }

    /** Whether some thread is mid-transition: the stretch lies in an aggregated event, not a frame. */
    public static boolean inAggregatedEvent(int[] masks) {
        for (int m : masks) {
            if (Integer.bitCount(m) > 1) {
                return true;
            }
        }
        return false;
    }
}
