package dev.dprof.format;

/**
 * What an event says, and how many 64-bit payload values it carries on disk.
 *
 * <p>Stamping rules that make cross-process causality a fact (DESIGN.md "Events"): a
 * {@link #SEND} is stamped before its bytes leave, a {@link #RECEIVE} after they arrived.
 */
public enum EventKind {
    THREAD_START(EventCodes.THREAD_START, 0),
    THREAD_END(EventCodes.THREAD_END, 0),
    /** Entry into a region. */
    ENTER(EventCodes.ENTER, 0),
    /** Normal exit from a region. */
    EXIT(EventCodes.EXIT, 0),
    /** Exit from a region by an exception. */
    EXIT_THROW(EventCodes.EXIT_THROW, 0),
    /** Entry into a region with a dynamic instance id (payload: instance). */
    ENTER_INSTANCE(EventCodes.ENTER_INSTANCE, 1),
    /** A message leaves (payload: channel, sequence key). */
    SEND(EventCodes.SEND, 2),
    /** A message has arrived (payload: channel, sequence key). */
    RECEIVE(EventCodes.RECEIVE, 2),
    /**
     * A thread arrives at a barrier or another collective (payload: instance key, shape — the
     * flavour, participants, rank and root, {@link CollectiveShape}).
     */
    BARRIER_ENTER(EventCodes.BARRIER_ENTER, 2),
    /** A thread leaves a barrier or another collective (payload: instance key, shape). */
    BARRIER_EXIT(EventCodes.BARRIER_EXIT, 2),
    /** A progress point was passed (payload: count added). */
    PROGRESS(EventCodes.PROGRESS, 1),
    PROCESS_START(EventCodes.PROCESS_START, 0),
    PROCESS_END(EventCodes.PROCESS_END, 0),
    /** The probe's own cost was measured here (payload: ticks per 1024 enter+exit pairs, pairs measured). */
    PROBE_COST(EventCodes.PROBE_COST, 2),
    /**
     * Something is handed to another thread of the same process: a queue's element, an executor's
     * task, a future's value, a new thread (payload: channel, key; {@link HandoffRegions}). Stamped
     * <b>before</b> the other thread can see it.
     */
    HANDOFF_PUT(EventCodes.HANDOFF_PUT, 2),
    /** What a {@link #HANDOFF_PUT} of the same process with equal payload handed over was taken; stamped <b>after</b>. */
    HANDOFF_TAKE(EventCodes.HANDOFF_TAKE, 2),
    /**
     * A virtual thread was mounted on the carrier whose ring records this (payload: the virtual
     * thread's id): the carrier's events up to the matching {@link #VT_UNMOUNT} are the virtual thread's.
     */
    VT_MOUNT(EventCodes.VT_MOUNT, 1),
    /** The virtual thread (payload: its id) leaves the carrier; stamped before it does. */
    VT_UNMOUNT(EventCodes.VT_UNMOUNT, 1);

    private static final EventKind[] BY_CODE = new EventKind[256];

    static {
        for (EventKind k : values()) {
            BY_CODE[k.code] = k;
        }
    }

    public final int code;
    public final int payloadCount;

    EventKind(int code, int payloadCount) {
        this.code = code;
        this.payloadCount = payloadCount;
    }

    /** Whether the event opens a region on its thread: an enter, with or without instance, or a barrier enter. */
    public boolean opens() {
        return this == ENTER || this == ENTER_INSTANCE || this == BARRIER_ENTER;
    }

    /** Whether the event closes a region on its thread: an exit, normal or by an exception, or a barrier exit. */
    public boolean closes() {
        return this == EXIT || this == EXIT_THROW || this == BARRIER_EXIT;
    }

    /**
     * Whether the event takes part in communication (a send, a receive, a barrier enter or exit, a
     * handoff's end, or a virtual thread's mount or unmount, which says whose the events are):
     * what the consolidator's first pass collects for matching, and what a batch without any of
     * them may say in its flags ({@link EventBatchEncoder#FLAG_NO_COMMUNICATION}).
     */
    public boolean communicates() {
        return this == SEND || this == RECEIVE || this == BARRIER_ENTER || this == BARRIER_EXIT
                || this == HANDOFF_PUT || this == HANDOFF_TAKE || this == VT_MOUNT || this == VT_UNMOUNT;
    }

    /** Whether the event is one end of a handoff between two threads of one process. */
    public boolean handsOff() {
        return this == HANDOFF_PUT || this == HANDOFF_TAKE;
    }

    /** The kind with this code, or {@code null} if this version does not know it. */
    public static EventKind ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
