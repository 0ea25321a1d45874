package dev.dprof.calibrator.estimate;

import java.util.List;

/**
 * Converts one stream of a domain's ticks to sound intervals in reference ticks, composing the
 * conversions along the domain's path to the reference (DProf §4.1, "converting timestamps
 * multiple times until they reach the root"). Conversions are monotone, so the lower end is
 * carried with lower bounds and the upper end with upper bounds at every hop.
 *
 * <p>It also counts what the consolidator reports: ticks outside the domain's calibrated span
 * (bounded by extrapolation, docs/BOUNDS.md "Outside the span"), ticks without a bound, and the
 * first and last bounded tick, the range a duration bound must cover.
 *
 * <p>Not thread-safe: one converter per stream. Ascending ticks cost O(1) amortized.
 *
 * <p>Implementation notes: {@link #convertSorted} keeps the run of the bulk conversion that
 * holds the last tick converted ({@link DomainConversion#runAt}). The ticks of one thread ascend,
 * so most chunks lie inside that run and are converted with its constants alone: no window or
 * piece search from the first window, no binary search for the run's end, no overflow test per
 * chunk (the run's ends passed it). A chunk that leaves the run moves it on, searching from where
 * it was. It gives the general path's bounds exactly ({@code TickConverterRunTest} compares them
 * on random calibrations).
 */
public final class TickConverter {
    private final DomainConversion.Cursor[] path;
    /** No tick gets a bound: the reference domain's own counter is not one clock. */
    private final boolean none;
    private long lo;
    private long hi;
    private long outsideSpan;
    private long unbounded;
    private long firstBounded = Long.MAX_VALUE;
    private long lastBounded = Long.MIN_VALUE;
    /**
     * The bulk conversion's run that holds the last tick of the last sorted chunk, for a
     * domain that hangs directly off the reference ({@link DomainConversion#runAt}).
     */
    private final DomainConversion.Run run = new DomainConversion.Run();

    TickConverter(List<DomainConversion> pathToReference) {
        this(pathToReference, false);
    }

    private TickConverter(List<DomainConversion> pathToReference, boolean none) {
        path = pathToReference.stream().map(DomainConversion::cursor).toArray(DomainConversion.Cursor[]::new);
        this.none = none;
    }

    /** A converter that bounds nothing (for the reference domain when its counter is not one clock). */
    static TickConverter withoutBounds() {
        return new TickConverter(List.of(), true);
    }

    /**
     * Converts a tick read on this converter's domain.
     *
     * @return false when no sound bound exists for it (a stretch whose data contradict the drift
     *         assumption); {@link #lo()} and {@link #hi()} are then meaningless
     */
    public boolean convert(long tick) {
        if (none) {
            lo = Long.MIN_VALUE;
            hi = Long.MAX_VALUE;
            unbounded++;
            return false;
        }
        if (path.length == 0) {
            lo = tick;
            hi = tick;
            seen(tick);
            return true;
        }
        if (path[0].conversion().outsideSpan(tick)) {
            outsideSpan++;
        }
        // The reading k means the continuous clock is in [k, k+1); k + 1 must exist.
        long l = tick == Long.MAX_VALUE ? Long.MIN_VALUE : path[0].lowerAt(tick);
        long h = tick == Long.MAX_VALUE ? Long.MAX_VALUE : path[0].upperAt(tick + 1);
        for (int i = 1; i < path.length && l != Long.MIN_VALUE && h != Long.MAX_VALUE; i++) {
            l = path[i].lowerAt(l);
            h = path[i].upperAt(h);
        }
        lo = l;
        hi = h;
        if (l == Long.MIN_VALUE || h == Long.MAX_VALUE) {
            unbounded++;
            return false;
        }
        seen(tick);
        return true;
    }

    private void seen(long boundedTick) {
        firstBounded = Math.min(firstBounded, boundedTick);
        lastBounded = Math.max(lastBounded, boundedTick);
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
            DomainConversion conversion = path[0].conversion();
            if (conversion.runsCover(ticks[0], ticks[n - 1]) && byRuns(conversion, ticks, n, lo, hi)) {
                seen(ticks[0]);
                seen(ticks[n - 1]);
                return n;
            }
            try {
                int bounded = n - conversion.convertSorted(ticks, n, lo, hi);
                // The next chunk of this thread most likely falls in the run of this one's last tick.
                conversion.runAt(ticks[n - 1], run);
                unbounded += n - bounded;
                outsideSpan += countOutside(ticks, n, conversion.spanFrom(), conversion.spanTo());
                // Bounded ticks are one run (between the horizons), so its ends are the extremes.
                for (int i = 0; i < n && bounded > 0; i++) {
                    if (lo[i] != Long.MIN_VALUE) {
                        seen(ticks[i]);
                        break;
                    }
                }
                for (int i = n - 1; i >= 0 && bounded > 0; i--) {
                    if (lo[i] != Long.MIN_VALUE) {
                        seen(ticks[i]);
                        break;
                    }
                }
                return bounded;
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

    /**
     * Converts ascending ticks that {@link DomainConversion#runsCover} run by run, starting from
     * the run kept from the chunk before and moving it on where the chunk leaves it.
     *
     * @return false when a run cannot be had exactly ({@link DomainConversion#runAt}): the
     *         general path then converts the whole chunk again
     */
    private boolean byRuns(DomainConversion conversion, long[] ticks, int n, long[] lo, long[] hi) {
        int done = 0;
        while (done < n) {
            if ((ticks[done] < run.from || ticks[done] >= run.to) && !conversion.runAt(ticks[done], run)) {
                return false;
            }
            int end = ticks[n - 1] < run.to ? n : DomainConversion.firstAtLeast(ticks, done, n, run.to);
            run.convert(ticks, done, end, lo, hi);
            done = end;
        }
        return true;
    }

    /** Ticks (ascending) below {@code from} or above {@code to}, by two binary searches. */
    private static int countOutside(long[] ticks, int n, long from, long to) {
        if (ticks[0] >= from && ticks[n - 1] <= to) {
            return 0;
        }
        int below = 0;
        int hiIndex = n;
        while (below < hiIndex) {
            int mid = (below + hiIndex) >>> 1;
            if (ticks[mid] < from) {
                below = mid + 1;
            } else {
                hiIndex = mid;
            }
        }
        int atMost = below;
        hiIndex = n;
        while (atMost < hiIndex) {
            int mid = (atMost + hiIndex) >>> 1;
            if (ticks[mid] <= to) {
                atMost = mid + 1;
            } else {
                hiIndex = mid;
            }
        }
        return below + (n - atMost);
    }

    /** The run kept for the next sorted chunk (for tests). */
    DomainConversion.Run keptRun() {
        return run;
    }

    /** Ticks converted so far that lie outside the domain's calibrated span (first to last zero). */
    public long outsideSpan() {
        return outsideSpan;
    }

    /** Ticks converted so far that got no bound. */
    public long unbounded() {
        return unbounded;
    }

    /** The smallest tick that got a bound so far, or MAX_VALUE if none did. */
    public long firstBounded() {
        return firstBounded;
    }

    /** The largest tick that got a bound so far, or MIN_VALUE if none did. */
    public long lastBounded() {
        return lastBounded;
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
