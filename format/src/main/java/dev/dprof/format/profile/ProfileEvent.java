package dev.dprof.format.profile;

import dev.dprof.format.EventKind;

/**
 * One event of a consolidated profile, as the writer takes it and the reader hands it out
 * (mutable and reused, so streaming allocates nothing per event).
 *
 * <p>{@code lo ≤ hi} bound the reference clock's reading at the moment of the event: a proof, in
 * reference ticks. {@code tick} is the raw reading on the event's own clock, for durations within
 * a thread. {@code truth} is the reference reading computed from the real tick when the clocks
 * were simulated, else {@link #NO_TRUTH}.
 */
public final class ProfileEvent {
    public static final long NO_TRUTH = Long.MIN_VALUE;

    /** The global index of the event's thread (see the profile's {@code streams}). */
    public int stream;
    public EventKind kind;
    /** The global region index, or -1 for events without a region. */
    public int region;
    public long tick;
    public long lo;
    public long hi;
    public long truth = NO_TRUTH;
    public long a;
    public long b;

    public ProfileEvent copy() {
        ProfileEvent e = new ProfileEvent();
        e.stream = stream;
        e.kind = kind;
        e.region = region;
        e.tick = tick;
        e.lo = lo;
        e.hi = hi;
        e.truth = truth;
        e.a = a;
        e.b = b;
        return e;
    }
}
