package dev.dprof.agent.bootstrap;

import java.util.Arrays;

/**
 * Each ring's thread, head and, at the host's end, the tick that stamps an ended thread's end, as
 * {@link Rings#mark} reads them for a drainer in another process. Reused pass after pass: it grows
 * with the number of threads and allocates nothing otherwise.
 */
public final class RingMarks {
    private long[] threadIds = new long[64];
    private long[] heads = new long[64];
    private long[] endTicks = new long[64];
    private int count;

    void clear() {
        count = 0;
    }

    void add(long threadId, long head, long endTick) {
        if (count == threadIds.length) {
            threadIds = Arrays.copyOf(threadIds, count * 2);
            heads = Arrays.copyOf(heads, count * 2);
            endTicks = Arrays.copyOf(endTicks, count * 2);
        }
        threadIds[count] = threadId;
        heads[count] = head;
        endTicks[count] = endTick;
        count++;
    }

    public int count() {
        return count;
    }

    /** The thread ids, valid up to {@link #count}. */
    public long[] threadIds() {
        return threadIds;
    }

    /** The heads, valid up to {@link #count}. */
    public long[] heads() {
        return heads;
    }

    /** The end ticks (0: the thread runs, or its ring says its end itself), valid up to {@link #count}. */
    public long[] endTicks() {
        return endTicks;
    }
}
