package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;
import dev.dprof.format.RingFile;

import java.nio.ByteBuffer;

/**
 * The native per-thread event rings: one single-producer single-consumer ring per thread, reached
 * from C thread-local storage, so a probe costs one JNI call that reads the tick and stores the
 * slot. With a ring directory set, each ring is a shared mapping of a file there ({@link RingFile}),
 * so what a killed process recorded survives it. The producer methods ({@code record*}, {@link #bindThread}) run on application threads;
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
    /** The ring file layout, shared with C via the JNI header (the C struct asserts its offsets). */
    static final int FILE_HEAD_AT = RingFile.HEAD_AT;
    static final int FILE_LOST_AT = RingFile.LOST_AT;
    static final int FILE_TAIL_AT = RingFile.TAIL_AT;
    static final int FILE_MAGIC_AT = RingFile.MAGIC_AT;
    static final int FILE_VERSION_AT = RingFile.VERSION_AT;
    static final int FILE_SLOT_BYTES_AT = RingFile.SLOT_BYTES_AT;
    static final int FILE_EVENTS_AT = RingFile.EVENTS_AT;
    static final int FILE_THREAD_ID_AT = RingFile.THREAD_ID_AT;
    static final int FILE_DEAD_AT = RingFile.DEAD_AT;
    static final int FILE_FLAGS_AT = RingFile.FLAGS_AT;
    static final int FILE_NAME_LENGTH_AT = RingFile.NAME_LENGTH_AT;
    static final int FILE_NAME_AT = RingFile.NAME_AT;
    static final int FILE_NAME_MAX = RingFile.NAME_MAX;
    static final int FILE_LOCAL_AT = RingFile.LOCAL_AT;
    static final int FILE_HEADER_BYTES = RingFile.HEADER_BYTES;
    static final long FILE_MAGIC = RingFile.MAGIC;
    static final int FILE_VERSION = RingFile.VERSION;
    static final int FILE_FLAG_PRIVATE = RingFile.FLAG_PRIVATE;

    private NativeRing() {
    }

    /**
     * Sets the clock mode (0 rdtsc, 1 rdtscp with the cpu stored) and the size in events (a power
     * of two) of rings created from now on. Call once before any record; the clock mode applies to
     * existing rings as well.
     */
    public static native void configure(int clockMode, int ringEvents);

    /**
     * Where rings created from now on get their files (an existing directory), or null for rings in
     * anonymous memory; false if it could not be stored. A ring whose file cannot be made falls back
     * to anonymous memory.
     */
    public static native boolean setRingDirectory(String dir);

    /** The free bytes a new ring file must leave on its file system; else the ring is anonymous memory. */
    public static native void setDiskReserve(long bytes);

    /** Marks the calling thread's ring, now or when it is made, as the agent's own: never recovered. */
    public static native void markPrivate();

    /** Whether a ring directory is set and every live ring has its file. */
    public static native boolean durable();

    /**
     * Removes the files of all live rings and turns files off; the rings stay mapped and usable.
     * For the end of a run, once everything is in the queue.
     */
    public static native void removeFiles();

    /** Stores an event with a = b = 0; 0 stored, 1 stored and new ring (call {@link #bindThread}), -1 dropped. */
    public static native int record(int header);

    /** As {@link #record(int)} with payload {@code a} (b = 0). */
    public static native int record1(int header, long a);

    /** As {@link #record(int)} with payloads {@code a} and {@code b}. */
    public static native int record2(int header, long a, long b);

    /**
     * Names the calling thread's ring with its Java thread id (until then the ring reports -1) and
     * its name in UTF-8 (cut to {@link RingFile#NAME_MAX} bytes), for the ring file.
     */
    public static native void bindThread(long javaThreadId, byte[] name);

    /** Fills {@code out} with ring handles, returns how many (at most {@code out.length}). */
    public static native int listRings(long[] out);

    /**
     * Copies up to {@code maxEvents} pending slots (and at most what fits) into the direct buffer
     * {@code directDst} from index 0, ignoring its position and limit; returns how many. The slots
     * stay pending until {@link #consume}: a ring file keeps them until they are in the queue.
     */
    public static native int drain(long ring, ByteBuffer directDst, int maxEvents);

    /** Hands the oldest {@code events} pending slots back to the producer (at most those pending). */
    public static native void consume(long ring, int events);

    /** The Java thread id bound to the ring, or -1 if not (yet) bound. */
    public static native long threadId(long ring);

    /**
     * The ring index of the next slot the producer writes (acquire): the bound of what a consumer in
     * another process may drain from the ring's file (docs/DESIGN.md, "The drainer in its own process").
     */
    public static native long head(long ring);

    /** Whether the ring is a mapping of a file (else anonymous memory, which only this process can read). */
    public static native boolean hasFile(long ring);

    /** Events dropped by the ring so far (full ring, including a THREAD_END that did not fit). */
    public static native long lost(long ring);

    /** Whether the ring's thread has exited; once true, no event is added any more. */
    public static native boolean isDead(long ring);

    /** Events stored and not yet drained. */
    public static native int pending(long ring);

    /** Frees a dead, fully drained ring; does nothing to a ring that is alive or has pending events. */
    public static native void release(long ring);

    /**
     * Sleeps until a ring is half full, {@link #wake} is called, or {@code timeoutNanos} pass.
     * Returns false at once, without sleeping, if the rings are not {@link #durable} (their
     * consumer must drain at its interval), a ring is half full already, or a wake came since the
     * last call. One consumer thread only.
     */
    public static native boolean awaitFill(long timeoutNanos);

    /** Ends an {@link #awaitFill} in progress, or makes the next one return at once. */
    public static native void wake();

    /** Events lost by all rings ever, including released rings and threads whose ring could not be allocated. */
    public static native long totalLost();
}
