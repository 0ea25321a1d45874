package dev.dprof.report.perfetto;

import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import java.io.IOException;
import java.util.Arrays;

/**
 * The regions open on one thread, innermost last, each with the event that opened it and the
 * trace time it opened at. Pairing follows the consolidator's statistics ({@code ProfileStatistics},
 * "Open instances"): an exit closes the innermost open frame of its region, closing the frames
 * above it first; an exit of a region not open closes nothing. Memory is the nesting depth.
 */
final class OpenRegions {
    /** Told of each frame as it closes, innermost first, while it is still on the stack. */
    interface Closer {
        /** {@code exit} is the event that closed frame {@code index}, or null when an outer exit or the end of the profile did. */
        void close(int index, long endNanos, ProfileEvent exit) throws IOException;
    }

    private int depth;
    /** Per open frame, a copy of the event that opened it; the copies are reused as frames come and go. */
    private ProfileEvent[] frames = new ProfileEvent[8];
    private long[] beginNanos = new long[8];

    /** Whether an event of this kind opens a region (a barrier's enter opens its wait). */
    static boolean opens(EventKind kind) {
        return kind == EventKind.ENTER || kind == EventKind.ENTER_INSTANCE || kind == EventKind.BARRIER_ENTER;
    }

    static boolean closes(EventKind kind) {
        return kind == EventKind.EXIT || kind == EventKind.EXIT_THROW || kind == EventKind.BARRIER_EXIT;
    }

    void enter(ProfileEvent e, long nanos) {
        if (depth == frames.length) {
            frames = Arrays.copyOf(frames, depth * 2);
            beginNanos = Arrays.copyOf(beginNanos, depth * 2);
        }
        ProfileEvent f = frames[depth];
        if (f == null) {
            f = frames[depth] = new ProfileEvent();
        }
        f.stream = e.stream;
        f.kind = e.kind;
        f.region = e.region;
        f.tick = e.tick;
        f.lo = e.lo;
        f.hi = e.hi;
        f.truth = e.truth;
        f.a = e.a;
        f.b = e.b;
        beginNanos[depth] = nanos;
        depth++;
    }

    /** Closes {@code exit}'s region at {@code nanos}; false, closing nothing, when that region is not open. */
    boolean exit(ProfileEvent exit, long nanos, Closer closer) throws IOException {
        int at = depth - 1;
        while (at >= 0 && frames[at].region != exit.region) {
            at--;
        }
        if (at < 0) {
            return false;
        }
        while (depth > at) {
            closer.close(depth - 1, nanos, depth - 1 == at ? exit : null);
            depth--;
        }
        return true;
    }

    /** Closes every open frame at {@code nanos}: the profile ended before their exits. */
    void closeAll(long nanos, Closer closer) throws IOException {
        while (depth > 0) {
            closer.close(depth - 1, nanos, null);
            depth--;
        }
    }

    int depth() {
        return depth;
    }

    /** The event that opened frame {@code i} (valid while the frame is open). */
    ProfileEvent opener(int i) {
        return frames[i];
    }

    long beginNanos(int i) {
        return beginNanos[i];
    }
}
