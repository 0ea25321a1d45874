package dev.dprof.consolidator.analysis.messages;

import dev.dprof.format.profile.ProfileEvent;

/**
 * One barrier instance of a consolidated profile: its region and the key its enters and exits
 * carry (their first payload value), the same across processes.
 */
public record BarrierKey(int region, long key) {
    /** The instance a {@code BARRIER_ENTER} or {@code BARRIER_EXIT} belongs to. */
    public static BarrierKey of(ProfileEvent e) {
        return new BarrierKey(e.region, e.a);
    }
}
