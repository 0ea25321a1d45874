package dev.dprof.consolidator.sync;

import java.util.Locale;

/**
 * Point synchronizations from in-run send→receive pairs, as the DProf paper compares FreeZer with
 * them (§3.5, after Duda et al. 1987): each process's clock is taken to be linear in the master's,
 * and the line is fitted to the messages between neighbours of a spanning tree of the message
 * graph, rooted at the master.
 */
public enum SyncMethod {
    /**
     * Linear regression: every message gives a point (receiver's tick, sender's tick) or (sender's
     * tick, receiver's tick), both directions in one set, and the least-squares line is the map.
     */
    LR,
    /**
     * Convex hull: the same points split by direction bound the line from above and below; the map
     * is the line through the middle of the corridor between the two hulls (at the ends of the data).
     */
    CH;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
