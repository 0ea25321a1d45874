package dev.dprof.agent.bootstrap;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the handoff probes could not turn into an edge, counted so that a missing edge is never
 * silent. Every count is of edges dropped or never made, not of wrong ones: the probes make none.
 */
public final class HandoffStats {
    /**
     * Puts of an element whose reference was already in flight in the same queue (a poison pill, a
     * cached box), in the queues found again by reference; never in a FIFO queue, keyed by position.
     */
    static final LongAdder AMBIGUOUS = new LongAdder();
    /** Elements that left their queue without a take the probes saw (drainTo, remove, clear, an iterator). */
    static final LongAdder DEPARTED = new LongAdder();
    /** Takes of an element the probes never saw put (put before the agent started, or purged meanwhile). */
    static final LongAdder UNMATCHED_TAKES = new LongAdder();
    /**
     * Takes of a FIFO queue whose position was not known: after a removal from the middle whose
     * position could not be found, a bulk removal ({@code removeIf}, {@code clear}), or during
     * one ({@code drainTo}): recorded nothing, to stay exact.
     */
    static final LongAdder POSITION_LOST = new LongAdder();
    /** Takes whose call overlapped a resync of their queue: recorded nothing, to stay exact. */
    static final LongAdder TAKES_DURING_RESYNC = new LongAdder();
    /**
     * Puts that waited for a take (a full bounded queue, a rendezvous) and record no back-pressure
     * take: the take's event was not recorded yet when the put returned, or another removal may have
     * freed the space.
     */
    static final LongAdder PRESSURE_DROPPED = new LongAdder();
    /** Futures waited for whose completion was put more than once (racing completers): no take recorded. */
    static final LongAdder FUTURE_RACES = new LongAdder();

    private HandoffStats() {
    }

    public static long ambiguous() {
        return AMBIGUOUS.sum();
    }

    public static long departed() {
        return DEPARTED.sum();
    }

    public static long unmatchedTakes() {
        return UNMATCHED_TAKES.sum();
    }

    public static long takesDuringResync() {
        return TAKES_DURING_RESYNC.sum();
    }

    public static long positionLost() {
        return POSITION_LOST.sum();
    }

    public static long pressureDropped() {
        return PRESSURE_DROPPED.sum();
    }

    public static long futureRaces() {
        return FUTURE_RACES.sum();
    }

    /**
     * One line for the end of the run, or null when no edge was dropped. Takes without a put are
     * left out: elements put before the agent started are normal, not a loss.
     */
    public static String summary() {
        long ambiguous = ambiguous();
        long departed = departed();
        long races = futureRaces();
        long resyncs = takesDuringResync();
        long pressure = pressureDropped();
        long positions = positionLost();
        if (ambiguous == 0 && departed == 0 && races == 0 && resyncs == 0 && pressure == 0 && positions == 0) {
            return null;
        }
        return "handoffs: " + ambiguous + " elements put while their reference was in flight in the same queue,"
                + " " + departed + " elements left their queue without a take (drainTo, remove, clear), "
                + resyncs + " takes overlapped a resync, " + races + " futures completed by racing threads, "
                + pressure + " waits on a full queue without the take that freed it, "
                + positions + " takes whose position in their queue a bulk removal made unknown"
                + " (edges dropped, never wrong)";
    }
}
