package dev.dprof.consolidator.analysis.causal;

/**
 * The range of {@code F(x) = max_j (x_j + A_j) − max_j (x_j + B_j)} over a box
 * {@code lo_j ≤ x_j ≤ hi_j}, exactly, in O(n).
 *
 * <p>Why it is exact. Both extremes lie at one of the n vertices that put one coordinate at its
 * upper end and all others at their lower ends. For the maximum, take any x and let {@code a} be
 * an index attaining the first max: raising {@code x_a} to {@code hi_a} adds exactly Δ to the first
 * term and at most Δ to the second, and lowering every other coordinate to its lower end leaves the
 * first term alone and cannot raise the second; neither step lowers F. For the minimum, the same
 * with {@code b} attaining the second max: raising {@code x_b} adds exactly Δ to the second term and
 * at most Δ to the first, lowering the others cannot raise the first. So evaluating F at the n
 * vertices, each in O(1) from the two largest {@code lo_j + A_j} and {@code lo_j + B_j}, gives both.
 *
 * <p>The what-if uses it for the gain of a join — how much earlier an event that waits for the
 * last of several predecessors happens when each predecessor j happens {@code R_j} earlier
 * ({@code A = 0, B = −R}), and for the gain at the start of a span ({@code x = −t, A = R, B = 0}).
 * F grows with every {@code R_j} in both forms, so the bounds on R are used at their own ends.
 */
final class JoinGain {
    private JoinGain() {
    }

    /** {@code [min F, max F]} over the box, written to {@code out[0..1]}. */
    static void range(long[] lo, long[] hi, long[] a, long[] b, int n, long[] out) {
        int a1 = -1;
        int a2 = -1;
        int b1 = -1;
        int b2 = -1;
        for (int j = 0; j < n; j++) {
            long va = lo[j] + a[j];
            if (a1 < 0 || va > lo[a1] + a[a1]) {
                a2 = a1;
                a1 = j;
            } else if (a2 < 0 || va > lo[a2] + a[a2]) {
                a2 = j;
            }
            long vb = lo[j] + b[j];
            if (b1 < 0 || vb > lo[b1] + b[b1]) {
                b2 = b1;
                b1 = j;
            } else if (b2 < 0 || vb > lo[b2] + b[b2]) {
                b2 = j;
            }
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int j = 0; j < n; j++) {
            int oa = j == a1 ? a2 : a1;
            int ob = j == b1 ? b2 : b1;
            long first = oa < 0 ? hi[j] + a[j] : Math.max(hi[j] + a[j], lo[oa] + a[oa]);
            long second = ob < 0 ? hi[j] + b[j] : Math.max(hi[j] + b[j], lo[ob] + b[ob]);
            long f = first - second;
            min = Math.min(min, f);
            max = Math.max(max, f);
        }
        out[0] = min;
        out[1] = max;
    }
}
