package dev.dprof.consolidator.analysis.causal;

/**
 * What a what-if speeds up: every instance of a region, or only those of one dynamic instance id
 * (the paper's rank-specific region, DProf §6 step 2), cut by a fraction of their time.
 *
 * @param region   the profile's region index
 * @param instance the dynamic instance id ({@code ENTER_INSTANCE} payload), or {@link #ANY}
 * @param fraction how much of the region's time goes, in [0, 1]; 1 is critical-path zeroing
 */
public record Cut(String label, int region, long instance, double fraction) {
    /** Every instance of the region. */
    public static final long ANY = Long.MIN_VALUE;

    public Cut {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("a speed-up must be a fraction in [0, 1], got " + fraction);
        }
    }

    boolean covers(int openRegion, long openInstance) {
        return openRegion == region && (instance == ANY || instance == openInstance);
    }
}
