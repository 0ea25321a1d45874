package dev.dprof.format;

/**
 * The numeric event kinds as compile-time constants.
 *
 * <p>The agent's bootstrap part has no dependencies, so it uses these constants only in
 * constant expressions, which {@code javac} inlines; {@link EventKind} is the reader's view of
 * the same codes. An event header is {@code kind | (regionId << REGION_SHIFT)}.
 */
public final class EventCodes {
    public static final int REGION_SHIFT = 8;
    public static final int KIND_MASK = 0xFF;

    public static final int THREAD_START = 1;
    public static final int THREAD_END = 2;
    public static final int ENTER = 3;
    public static final int EXIT = 4;
    public static final int EXIT_THROW = 5;
    public static final int ENTER_INSTANCE = 6;
    public static final int SEND = 7;
    public static final int RECEIVE = 8;
    public static final int BARRIER_ENTER = 9;
    public static final int BARRIER_EXIT = 10;
    public static final int PROGRESS = 11;
    public static final int PROCESS_START = 12;
    public static final int PROCESS_END = 13;
    public static final int PROBE_COST = 14;
    /** A thread hands something to another thread of its process (payload: channel, key); {@link HandoffRegions}. */
    public static final int HANDOFF_PUT = 15;
    /** A thread has taken what another thread of its process handed over (payload: channel, key). */
    public static final int HANDOFF_TAKE = 16;
    /** A virtual thread was mounted on the recording carrier (payload: the virtual thread's id). */
    public static final int VT_MOUNT = 17;
    /** The virtual thread is about to be unmounted from the recording carrier (payload: its id). */
    public static final int VT_UNMOUNT = 18;

    /*
     * The second payload of BARRIER_ENTER/BARRIER_EXIT, the collective's shape (format version 2,
     * CollectiveShape): participants in bits 0-19, the flavour in bits 20-23, the participant's rank
     * in bits 24-43, the root's rank in bits 44-63. A version 1 barrier payload (participants only)
     * reads as an N-to-N shape.
     */
    public static final int SHAPE_FIELD_BITS = 20;
    public static final long SHAPE_FIELD_MAX = (1L << SHAPE_FIELD_BITS) - 1;
    public static final int SHAPE_FLAVOUR_SHIFT = 20;
    public static final int SHAPE_RANK_SHIFT = 24;
    public static final int SHAPE_ROOT_SHIFT = 44;

    /** N-to-N (barrier, all-reduce, all-gather): every enter precedes every exit. */
    public static final int FLAVOUR_N_TO_N = 0;
    /** 1-to-N (broadcast, scatter): the root's enter precedes every exit. */
    public static final int FLAVOUR_ONE_TO_N = 1;
    /** N-to-1 (reduce, gather): every enter precedes the root's exit. */
    public static final int FLAVOUR_N_TO_ONE = 2;
    /** Inclusive scan: the enter of rank i precedes the exit of every rank j ≥ i. */
    public static final int FLAVOUR_SCAN = 3;
    /** Exclusive scan: the enter of rank i precedes the exit of every rank j > i. */
    public static final int FLAVOUR_EXSCAN = 4;
    /** The probe could not record the shape (a value out of range): the instance implies no order. */
    public static final int FLAVOUR_INVALID = 15;

    private EventCodes() {
    }

    public static int header(int kind, int regionId) {
        return kind | (regionId << REGION_SHIFT);
    }

    public static int kind(int header) {
        return header & KIND_MASK;
    }

    public static int region(int header) {
        return header >>> REGION_SHIFT;
    }
}
