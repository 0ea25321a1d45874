package dev.dprof.agent.stats;

import java.util.Arrays;

/**
 * The regions open on one thread (a virtual thread has its own), innermost last, and how many events
 * the thread has recorded: what an exit needs to become an instance. Grows with the nesting depth
 * only, never with the number of events.
 */
final class ThreadStack {
    static final int NO_CALLER = -1;

    /** Events seen on this thread; an instance's nested events are the difference at its exit. */
    long seq;
    int depth;
    int[] region = new int[8];
    int[] caller = new int[8];
    /** Whether the frame is counted: false for a recursive entry into a region already open. */
    boolean[] counted = new boolean[8];
    long[] tick = new long[8];
    long[] seqAt = new long[8];
    boolean[] hasInstance = new boolean[8];
    long[] instance = new long[8];
    boolean[] hasChannel = new boolean[8];
    long[] channel = new long[8];
    /** Per region id, the frames of it open here (the recursion rule). */
    private int[] openCount = new int[16];

    int open(int r) {
        return r < openCount.length ? openCount[r] : 0;
    }

    void push(int r, int c, boolean isCounted, long t, boolean withInstance, long inst) {
        if (depth == region.length) {
            int n = depth * 2;
            region = Arrays.copyOf(region, n);
            caller = Arrays.copyOf(caller, n);
            counted = Arrays.copyOf(counted, n);
            tick = Arrays.copyOf(tick, n);
            seqAt = Arrays.copyOf(seqAt, n);
            hasInstance = Arrays.copyOf(hasInstance, n);
            instance = Arrays.copyOf(instance, n);
            hasChannel = Arrays.copyOf(hasChannel, n);
            channel = Arrays.copyOf(channel, n);
        }
        if (r >= openCount.length) {
            openCount = Arrays.copyOf(openCount, Math.max(r + 1, openCount.length * 2));
        }
        openCount[r]++;
        region[depth] = r;
        caller[depth] = c;
        counted[depth] = isCounted;
        tick[depth] = t;
        seqAt[depth] = seq;
        hasInstance[depth] = withInstance;
        instance[depth] = inst;
        hasChannel[depth] = false;
        depth++;
    }

    void pop() {
        openCount[region[--depth]]--;
    }

    /** The depth of the innermost frame of region {@code r}, or -1. */
    int find(int r) {
        if (open(r) == 0) {
            return -1;
        }
        for (int d = depth - 1; d >= 0; d--) {
            if (region[d] == r) {
                return d;
            }
        }
        return -1;
    }

    /** The innermost open region, the caller of a frame pushed now. */
    int top() {
        return depth == 0 ? NO_CALLER : region[depth - 1];
    }
}
