package dev.dprof.calibrator.estimate;

import java.util.List;

/**
 * Converts one stream of a domain's ticks to sound intervals in reference ticks, composing the
 * conversions along the domain's path to the reference (DProf §4.1, "converting timestamps
 * multiple times until they reach the root"). Conversions are monotone, so the lower end is
 * carried with lower bounds and the upper end with upper bounds at every hop.
 *
 * <p>Not thread-safe: one converter per stream. Ascending ticks cost O(1) amortized.
 */
public final class TickConverter {
    private final DomainConversion.Cursor[] path;
    private long lo;
    private long hi;

    TickConverter(List<DomainConversion> pathToReference) {
        path = pathToReference.stream().map(DomainConversion::cursor).toArray(DomainConversion.Cursor[]::new);
    }

    /**
     * Converts a tick read on this converter's domain.
     *
     * @return false when no sound bound exists for it (a stretch whose data contradict the drift
     *         assumption); {@link #lo()} and {@link #hi()} are then meaningless
     */
    public boolean convert(long tick) {
        if (path.length == 0) {
            lo = tick;
            hi = tick;
            return true;
        }
        // The reading k means the continuous clock is in [k, k+1).
        long l = path[0].lowerAt(tick);
        long h = path[0].upperAt(tick + 1);
        for (int i = 1; i < path.length && l != Long.MIN_VALUE && h != Long.MAX_VALUE; i++) {
            l = path[i].lowerAt(l);
            h = path[i].upperAt(h);
        }
        lo = l;
        hi = h;
        return l != Long.MIN_VALUE && h != Long.MAX_VALUE;
    }

    /**
     * Converts ascending ticks in bulk, the fast path for a domain that hangs directly off the
     * reference; deeper paths go tick by tick.
     *
     * @return how many got a bound; the others have {@code lo = MIN_VALUE}, {@code hi = MAX_VALUE}
     */
    public int convertSorted(long[] ticks, int n, long[] lo, long[] hi) {
        if (n == 0) {
            return 0;
        }
        if (path.length == 1) {
            try {
                return n - path[0].conversion().convertSorted(ticks, n, lo, hi);
            } catch (ArithmeticException overflow) {
                // fall through to the checked per-tick path
            }
        }
        int bounded = 0;
        for (int i = 0; i < n; i++) {
            if (convert(ticks[i])) {
                bounded++;
                lo[i] = this.lo;
                hi[i] = this.hi;
            } else {
                lo[i] = Long.MIN_VALUE;
                hi[i] = Long.MAX_VALUE;
            }
        }
        return bounded;
    }

    /** The earliest reference reading the tick can correspond to. */
    public long lo() {
        return lo;
    }

    /** The latest reference reading the tick can correspond to. */
    public long hi() {
        return hi;
    }
}
