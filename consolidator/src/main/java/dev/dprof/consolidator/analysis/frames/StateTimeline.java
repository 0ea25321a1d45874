package dev.dprof.consolidator.analysis.frames;

import java.util.Arrays;

/**
 * What one thread's state can be at each moment, given its state transitions as sound intervals
 * in their program order (DProf §5.1). A transition {@code i} whose interval has ended
 * ({@code hi ≤ τ}) certainly happened, and so did every earlier one; one that has not started
 * ({@code lo > τ}) certainly did not, nor any later one. So at τ the thread is in one of the
 * states after transitions {@code c(τ)..p(τ)}, with {@code c(τ) = max{i : min_{j≥i} hi_j ≤ τ}}
 * and {@code p(τ) = max{i : max_{j≤i} lo_j ≤ τ}} — both monotone in τ, so the possible-state set
 * is a step function computed in one pass.
 *
 * <p>States are small integers (below 31); a set of them is a bit mask.
 */
public final class StateTimeline {
    private final long[] at;
    private final int[] mask;

    private StateTimeline(long[] at, int[] mask) {
        this.at = at;
        this.mask = mask;
    }

    /**
     * @param lo      transitions' earliest times, in program order
     * @param hi      their latest times
     * @param state   the state after each transition
     * @param initial the state before the first
     */
    public static StateTimeline of(long[] lo, long[] hi, int[] state, int n, int initial) {
        long[] prefixMaxLo = new long[n];
        long[] suffixMinHi = new long[n];
        for (int i = 0; i < n; i++) {
            prefixMaxLo[i] = i == 0 ? lo[0] : Math.max(prefixMaxLo[i - 1], lo[i]);
        }
        for (int i = n - 1; i >= 0; i--) {
            suffixMinHi[i] = i == n - 1 ? hi[i] : Math.min(suffixMinHi[i + 1], hi[i]);
        }
        // States after transitions -1..n-1, index shifted by one: s[0] = initial.
        int[] s = new int[n + 1];
        s[0] = initial;
        System.arraycopy(state, 0, s, 1, n);
        int[] count = new int[32];
        long[] points = new long[2 * n + 1];
        int[] masks = new int[2 * n + 1];
        int size = 0;
        int c = -1;
        int p = -1;
        count[s[0]]++;
        int pi = 0;
        int ci = 0;
        points[size] = Long.MIN_VALUE;
        masks[size++] = 1 << initial;
        while (pi < n || ci < n) {
            long next = Math.min(pi < n ? prefixMaxLo[pi] : Long.MAX_VALUE, ci < n ? suffixMinHi[ci] : Long.MAX_VALUE);
            while (pi < n && prefixMaxLo[pi] <= next) {
                p = pi++;
                count[s[p + 1]]++;
            }
            while (ci < n && suffixMinHi[ci] <= next) {
                // c advances to ci: the state before it is no longer possible
                count[s[c + 1]]--;
                c = ci++;
            }
            int m = 0;
            for (int k = 0; k < 32; k++) {
                if (count[k] > 0) {
                    m |= 1 << k;
                }
            }
            if (masks[size - 1] != m) {
                points[size] = next;
                masks[size++] = m;
            } else if (points[size - 1] == next) {
                masks[size - 1] = m;
            }
        }
        return new StateTimeline(Arrays.copyOf(points, size), Arrays.copyOf(masks, size));
    }

    /** Change points: from {@code at(i)} on (until {@code at(i+1)}) the possible states are {@code mask(i)}. */
    public int points() {
        return at.length;
    }

    public long at(int i) {
        return at[i];
    }

    public int mask(int i) {
        return mask[i];
    }
}
