package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;

import java.nio.ByteBuffer;

/**
 * The native per-thread event rings: one single-producer single-consumer ring per thread, reached
 * from C thread-local storage, so a probe costs one JNI call that reads the tick and stores the
 * slot. The producer methods ({@code record*}, {@link #bindThread}) run on application threads;
 * everything taking a {@code ring} handle belongs to one drainer thread at a time. Most code uses
 * {@link Rings} instead.
 */
public final class NativeRing {
    /** Header of the event C stamps when it creates a ring (region 0); shared with C via the JNI header. */
    static final int THREAD_START_HEADER = EventCodes.THREAD_START;
    /** Header of the event C stamps when the thread exits. */
    static final int THREAD_END_HEADER = EventCodes.THREAD_END;
    /** Bytes per slot, shared with C via the JNI header. */
    static final int SLOT_BYTES = 32;
    /** Clock modes of {@link #configure}. */
    static final int CLOCK_RDTSC = 0;
    static final int CLOCK_RDTSCP = 1;
    /** Bounds of a ring's size in events. */
    static final int MIN_RING_EVENTS = 2;
    static final int MAX_RING_EVENTS = 1 << 24;

    private NativeRing() {
    }

    /**
     * Sets the clock mode (0 rdtsc, 1 rdtscp with the cpu stored) and the size in events (a power
     * of two) of rings created from now on. Call once before any record; the clock mode applies to
     * existing rings as well.
     */
    public static native void configure(int clockMode, int ringEvents);

    /** Stores an event with a = b = 0; 0 stored, 1 stored and new ring (call {@link #bindThread}), -1 dropped. */
    public static native int record(int header);

    /** As {@link #record(int)} with payload {@code a} (b = 0). */
    public static native int record1(int header, long a);

    /** As {@link #record(int)} with payloads {@code a} and {@code b}. */
    public static native int record2(int header, long a, long b);

    /** Names the calling thread's ring with its Java thread id; until then the ring reports -1. */
    public static native void bindThread(long javaThreadId);

    /** Fills {@code out} with ring handles, returns how many (at most {@code out.length}). */
    public static native int listRings(long[] out);

    /**
     * Moves up to {@code maxEvents} pending slots (and at most what fits) into the direct buffer
     * {@code directDst} from index 0, ignoring its position and limit; returns how many.
     */
    public static native int drain(long ring, ByteBuffer directDst, int maxEvents);

    /** The Java thread id bound to the ring, or -1 if not (yet) bound. */
    public static native long threadId(long ring);

    /** Events dropped by the ring so far (full ring, including a THREAD_END that did not fit). */
    public static native long lost(long ring);

    /** Whether the ring's thread has exited; once true, no event is added any more. */
    public static native boolean isDead(long ring);

    /** Events stored and not yet drained. */
    public static native int pending(long ring);

    /** Frees a dead, fully drained ring; does nothing to a ring that is alive or has pending events. */
    public static native void release(long ring);

    /**
     * Sleeps until the next event is recorded in any ring, {@link #wake} is called, or
     * {@code timeoutNanos} pass. Returns false at once, without sleeping, if a ring has pending
     * events or has a dead thread, if a wake came since the last call, or if the kernel lacks
     * {@code membarrier} (then the caller must poll). One consumer thread only.
     */
    public static native boolean awaitEvent(long timeoutNanos);

    /** Ends an {@link #awaitEvent} in progress, or makes the next one return at once. */
    public static native void wake();

    /** Events lost by all rings ever, including released rings and threads whose ring could not be allocated. */
    public static native long totalLost();
}
