package dev.dprof.report.perfetto;

/**
 * Reference ticks as trace nanoseconds: relative to the lower bound of the profile's first event
 * (so they fit Perfetto's unsigned timestamps and stay small), at the reference's nominal rate
 * ({@code referenceTickHz}). For display only (DESIGN.md "Units"): the proofs are the bounds in
 * reference ticks. Lower bounds round down and upper bounds up, so a shown interval never looks
 * narrower than the bound; a midpoint rounds to nearest and is no bound at all.
 */
final class TraceClock {
    private final long origin;
    private final double nanosPerTick;

    TraceClock(long origin, double referenceTickHz) {
        this.origin = origin;
        this.nanosPerTick = 1e9 / referenceTickHz;
    }

    long lower(long tick) {
        return (long) Math.floor((tick - origin) * nanosPerTick);
    }

    long upper(long tick) {
        return (long) Math.ceil((tick - origin) * nanosPerTick);
    }

    long nearest(long tick) {
        return Math.round((tick - origin) * nanosPerTick);
    }

    /** The middle of {@code [lo, hi]}: where the trace draws an event whose moment is only bounded. */
    long midpoint(long lo, long hi) {
        return Math.round(((lo - origin) + (hi - lo) / 2.0) * nanosPerTick);
    }
}
