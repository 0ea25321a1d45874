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
    private int[] region = new int[8];
    private EventKind[] kind = new EventKind[8];
    private long[] beginNanos = new long[8];
    private long[] lo = new long[8];
    private long[] hi = new long[8];
    private long[] truth = new long[8];
    private long[] a = new long[8];
    private long[] b = new long[8];

    /** Whether an event of this kind opens a region (a barrier's enter opens its wait). */
    static boolean opens(EventKind kind) {
        return kind == EventKind.ENTER || kind == EventKind.ENTER_INSTANCE || kind == EventKind.BARRIER_ENTER;
    }

    static boolean closes(EventKind kind) {
        return kind == EventKind.EXIT || kind == EventKind.EXIT_THROW || kind == EventKind.BARRIER_EXIT;
    }

    void enter(ProfileEvent e, long nanos) {
        if (depth == region.length) {
            int n = depth * 2;
            region = Arrays.copyOf(region, n);
            kind = Arrays.copyOf(kind, n);
            beginNanos = Arrays.copyOf(beginNanos, n);
            lo = Arrays.copyOf(lo, n);
            hi = Arrays.copyOf(hi, n);
            truth = Arrays.copyOf(truth, n);
            a = Arrays.copyOf(a, n);
            b = Arrays.copyOf(b, n);
        }
        region[depth] = e.region;
        kind[depth] = e.kind;
        beginNanos[depth] = nanos;
        lo[depth] = e.lo;
        hi[depth] = e.hi;
        truth[depth] = e.truth;
        a[depth] = e.a;
        b[depth] = e.b;
        depth++;
    }

    /** Closes {@code exit}'s region at {@code nanos}; false, closing nothing, when that region is not open. */
    boolean exit(ProfileEvent exit, long nanos, Closer closer) throws IOException {
        int at = depth - 1;
        while (at >= 0 && region[at] != exit.region) {
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

    int region(int i) {
        return region[i];
    }

    EventKind kind(int i) {
        return kind[i];
    }

    long beginNanos(int i) {
        return beginNanos[i];
    }

    long lo(int i) {
        return lo[i];
    }

    long hi(int i) {
        return hi[i];
    }

    long truth(int i) {
        return truth[i];
    }

    long a(int i) {
        return a[i];
    }

    long b(int i) {
        return b[i];
    }
}
