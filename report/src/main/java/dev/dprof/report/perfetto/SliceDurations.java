package dev.dprof.report.perfetto;

/**
 * The level of detail of a large trace: a histogram of slice durations (trace nanoseconds, end minus
 * begin timestamp) in quarter-octave buckets, and the shortest duration a slice needs so that at
 * most a budget of slices is kept. Filled by a first pass over the profile that pairs regions
 * exactly as the export does; memory is the fixed bucket array.
 *
 * <p>Durations are nested like the slices: a slice lasts at least as long as any slice inside it,
 * so keeping the slices at or above a threshold keeps every kept slice's parents too.
 */
final class SliceDurations {
    /** Durations 0–7 have a bucket each; above, four buckets per power of two up to 2^63. */
    private static final int EXACT = 8;
    private final long[] counts = new long[EXACT + (63 - 3) * 4];
    private long total;

    void add(long nanos) {
        counts[bucket(nanos)]++;
        total++;
    }

    long total() {
        return total;
    }

    /** The smallest bucket edge {@code t} such that at most {@code budget} slices last {@code t} or longer; 0 if all fit. */
    long threshold(long budget) {
        if (total <= budget) {
            return 0;
        }
        long kept = 0;
        for (int b = counts.length - 1; b >= 0; b--) {
            if (kept + counts[b] > budget) {
                return lowerEdge(b + 1);
            }
            kept += counts[b];
        }
        return 0;
    }

    static int bucket(long nanos) {
        if (nanos < EXACT) {
            return (int) Math.max(nanos, 0);
        }
        int octave = 63 - Long.numberOfLeadingZeros(nanos);
        int quarter = (int) (nanos >>> (octave - 2)) & 3;
        return EXACT + (octave - 3) * 4 + quarter;
    }

    /** The smallest duration in bucket {@code b}; past the last bucket, more than any duration. */
    static long lowerEdge(int b) {
        if (b < EXACT) {
            return b;
        }
        int octave = (b - EXACT) / 4 + 3;
        if (octave > 62) {
            return Long.MAX_VALUE;
        }
        return (4L + (b - EXACT) % 4) << (octave - 2);
    }
}
