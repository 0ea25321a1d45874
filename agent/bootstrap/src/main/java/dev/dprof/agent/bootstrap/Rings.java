package dev.dprof.agent.bootstrap;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What probes call to record an event, and what the drainer calls to collect them. Backed by
 * the native rings when {@link RingConfig#init} loaded the library, else by {@link JavaRing}.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>{@link #NATIVE} is a {@code static final} read from {@link RingConfig} in the static
 * initializer. Once {@code Rings} is initialized, C1 and C2 treat it as a constant and drop the
 * untaken branch, so a probe compiles to the one JNI call (or the Java ring) and nothing else.
 * It follows that {@link RingConfig#init} must run before the first use of this class.</li>
 * <li>The record methods never throw into the host: the native call cannot throw by itself, and
 * anything else (a {@code StackOverflowError} in a deep stack, say) is swallowed. The catch
 * costs nothing on the path that does not throw.</li>
 * <li>The steady-state path does not allocate or lock. A thread's first event takes the slow
 * path once: the ring is created (native: a file and its mapping, a mutex), the ring is bound to
 * the Java thread id and name, and the name is put in a concurrent map (boxing, allocation). That
 * thread is the carrier (OS thread) even when a virtual thread recorded the first event: rings
 * are per OS thread, and a virtual thread's events are marked on its carrier's ring
 * ({@link VirtualThreads}).</li>
 * <li>Consumer methods are {@code synchronized}: rings are single-consumer, and a ring handle is
 * freed by the drain that finds its thread dead and drained, so two drainers must not overlap.</li>
 * </ul>
 */
public final class Rings {
    /** Bytes per slot in the buffers handed to {@link RingVisitor}. */
    public static final int SLOT_BYTES = NativeRing.SLOT_BYTES;

    /** Whether events go to the native rings (TSC ticks) rather than the Java ones (nanoTime). */
    public static final boolean NATIVE = RingConfig.freezeNative();

    private static final ConcurrentHashMap<Long, String> THREAD_NAMES = new ConcurrentHashMap<>();
    /** The Java thread of each native ring, for {@link #drainLast}: only the drain can tell it has ended. */
    private static final ConcurrentHashMap<Long, WeakReference<Thread>> NATIVE_THREADS = new ConcurrentHashMap<>();
    private static long[] handles = new long[64];
    /** Most passes of {@link #drainLast}: a thread recording all along must not hold the shutdown up. */
    static final int LAST_PASSES = 8;

    private Rings() {
    }

    /** Records an event with no payload; never throws. */
    public static void record(int header) {
        try {
            if (NATIVE) {
                nativeRecord(header);
            } else {
                javaRecord(header, 0, 0);
            }
        } catch (Throwable ignored) {
            // The host must not notice the profiler; a lost event is the lesser harm.
        }
    }

    /** Records an event with payload {@code a}; never throws. */
    public static void record(int header, long a) {
        try {
            if (NATIVE) {
                nativeRecord(header, a);
            } else {
                javaRecord(header, a, 0);
            }
        } catch (Throwable ignored) {
            // See record(int).
        }
    }

    /** Records an event with payloads {@code a} and {@code b}; never throws. */
    public static void record(int header, long a, long b) {
        try {
            if (NATIVE) {
                nativeRecord(header, a, b);
            } else {
                javaRecord(header, a, b);
            }
        } catch (Throwable ignored) {
            // See record(int).
        }
    }

    // Per-backend entry points, package-private so tests can drive both backends in one JVM.

    static int nativeRecord(int header) {
        int r = NativeRing.record(header);
        if (r > 0) {
            firstEvent(true);
        }
        return r;
    }

    static int nativeRecord(int header, long a) {
        int r = NativeRing.record1(header, a);
        if (r > 0) {
            firstEvent(true);
        }
        return r;
    }

    static int nativeRecord(int header, long a, long b) {
        int r = NativeRing.record2(header, a, b);
        if (r > 0) {
            firstEvent(true);
        }
        return r;
    }

    static int javaRecord(int header, long a, long b) {
        int r = JavaRing.record(header, a, b);
        if (r > 0) {
            firstEvent(false);
        }
        return r;
    }

    /**
     * Binds the calling thread's new ring to its Java thread: the carrier's when a virtual thread
     * recorded the ring's first event (rings belong to OS threads, {@link VirtualThreads}).
     */
    private static void firstEvent(boolean nativeRing) {
        Thread t = VirtualThreads.currentCarrier();
        long id = t.getId();
        if (nativeRing) {
            // Before the bind: a drain that sees the ring bound finds its thread.
            NATIVE_THREADS.putIfAbsent(id, new WeakReference<>(t));
            NativeRing.bindThread(id, t.getName().getBytes(StandardCharsets.UTF_8));
        }
        THREAD_NAMES.putIfAbsent(id, t.getName());
    }

    /** The name of a thread when it recorded its first event, or null if it never did. */
    public static String threadName(long javaThreadId) {
        return THREAD_NAMES.get(javaThreadId);
    }

    /**
     * Gives rings created from now on a file each in {@code dir} (created if missing), so that what
     * a killed process recorded survives it ({@code dev.dprof.format.RingFile}). Only the native
     * rings can; with the Java rings this does nothing.
     *
     * @throws IOException naming {@code dir} and why its files cannot be made
     */
    public static void useRingFiles(Path dir) throws IOException {
        if (!NATIVE) {
            return;
        }
        Files.createDirectories(dir);
        if (!NativeRing.setRingDirectory(dir.toString())) {
            throw new IOException(dir + ": out of native memory for the ring directory's name");
        }
    }

    /**
     * The free space ring files leave on their file system (the queue's reserve, shared): a ring
     * whose file would cut into it lives in memory instead, recording as before but not surviving
     * a {@code kill -9}. Only the native rings have files.
     */
    public static void setDiskReserve(long bytes) {
        if (NATIVE) {
            NativeRing.setDiskReserve(bytes);
        }
    }

    /**
     * Whether every event recorded survives a {@code kill -9} without being drained: ring files are
     * on and every live ring has one. Otherwise the drainer must drain every interval.
     */
    public static boolean durable() {
        return NATIVE && NativeRing.durable();
    }

    /** At the end of a run, once everything is in the queue: removes the ring files (the rings stay usable). */
    public static void removeRingFiles() {
        if (NATIVE) {
            NativeRing.removeFiles();
        }
    }

    /** Marks the calling thread as the agent's own: its ring is never recovered from a file. */
    public static void markThreadPrivate() {
        if (NATIVE) {
            NativeRing.markPrivate();
        }
    }

    /** Events dropped so far by all threads (full rings, rings that could not be created). */
    public static long totalLost() {
        return NATIVE ? NativeRing.totalLost() : JavaRing.totalLost();
    }

    /**
     * Hands every ring's pending events to {@code v}, in batches of at most
     * {@code scratch.capacity() / SLOT_BYTES} slots, each thread's in order. A ring whose thread
     * has ended gets a last call with {@code threadEnded} true (with {@code count} 0 if nothing
     * was left) and is freed. A native ring not yet bound to its Java thread (its thread is
     * between its first event and {@code bindThread}) is skipped until the next drain.
     *
     * @param scratch a direct buffer of at least {@link #SLOT_BYTES} bytes; its byte order is set
     *                to little endian and its position and limit are overwritten
     * @throws IllegalArgumentException if {@code scratch} is not direct or too small
     */
    public static void drain(RingVisitor v, ByteBuffer scratch) {
        if (NATIVE) {
            drainNative(v, scratch);
        } else {
            drainJava(v, scratch);
        }
    }

    /**
     * The drain at shutdown, after which nothing is drained any more: passes of {@link #drain} until
     * one finds nothing new (at most {@value #LAST_PASSES}), in which a thread that has ended while
     * its native ring is not yet marked dead gets its THREAD_END stamped, once, an upper bound of its
     * real end, as {@link JavaRing} always does; later passes leave that ring alone (its thread runs
     * no Java code any more). The ring's own THREAD_END comes from
     * the pthread destructor, which runs after {@code Thread.join} has returned and so may come after
     * this drain — or, for the thread that ran {@code main}, never before the process exits. Such a
     * ring is not freed, since its destructor may still write to it.
     *
     * <p>Why passes until one is empty: the shutdown hooks run beside this drain, and one pass reads
     * the rings one after another, so a handoff between two of them (the JVM's {@code main} joining
     * a hook, {@code java.util.logging}'s {@code Logging-Cleaner} say) could have its take read on
     * a ring drained late in the pass and its put missed on a ring drained, or not yet made, earlier
     * — a take without a put, in HandoffIT one run in about ten. A take read in one pass was
     * recorded after its put, so the put is in its ring when the next pass begins; once a pass
     * finds nothing, every take read had its put read. Only threads that record through all
     * {@value #LAST_PASSES} passes can still leave a take whose put came too late: no edge, never a
     * wrong one.
     */
    public static void drainLast(RingVisitor v, ByteBuffer scratch) {
        Set<Long> stamped = new HashSet<>();
        for (int pass = 0; pass < LAST_PASSES; pass++) {
            if ((NATIVE ? drainNative(v, scratch, stamped) : drainJava(v, scratch)) == 0) {
                break;
            }
        }
    }

    /**
     * Sleeps until a ring is half full (or {@link #wakeConsumer}, or the timeout), for a drainer
     * whose rings are {@link #durable}: their events need no hurry. Returns false without sleeping
     * when the rings are not durable, a ring is half full already or a wake came, and the caller
     * then drains at its interval.
     */
    public static boolean awaitFill(long timeoutNanos) {
        return NATIVE && NativeRing.awaitFill(timeoutNanos);
    }

    /** Ends the drainer's {@link #awaitFill}, or makes its next one return at once. */
    public static void wakeConsumer() {
        if (NATIVE) {
            NativeRing.wake();
        }
    }

    /** Returns how many events were drained. */
    static synchronized int drainJava(RingVisitor v, ByteBuffer scratch) {
        checkScratch(scratch);
        return JavaRing.drainAll(v, scratch);
    }

    static int drainNative(RingVisitor v, ByteBuffer scratch) {
        return drainNative(v, scratch, null);
    }

    /**
     * One pass over the native rings; returns how many events were drained (stamped ends not
     * counted), plus one per ring skipped with events because it is not yet bound to its thread, so
     * that the shutdown's passes go on until it is. {@code stamped}: null, or at shutdown the
     * threads whose end a pass stamped already.
     */
    static synchronized int drainNative(RingVisitor v, ByteBuffer scratch, Set<Long> stamped) {
        boolean last = stamped != null;
        checkScratch(scratch);
        scratch.order(ByteOrder.LITTLE_ENDIAN);
        int count;
        while ((count = NativeRing.listRings(handles)) == handles.length) {
            handles = new long[handles.length * 2];
        }
        int drained = 0;
        for (int i = 0; i < count; i++) {
            long ring = handles[i];
            // dead first: once it is seen set, pending and lost are final.
            boolean dead = NativeRing.isDead(ring);
            long tid = NativeRing.threadId(ring);
            if (tid < 0 && !dead) {
                drained += last && NativeRing.pending(ring) > 0 ? 1 : 0;
                continue;
            }
            if (last && stamped.contains(tid)) {
                continue;
            }
            if (last && !dead && hasEnded(tid)) {
                drained += drainRing(v, scratch, ring, tid, false);
                // The destructor may have run meanwhile; then its THREAD_END is pending, and final.
                dead = NativeRing.isDead(ring);
                if (!dead) {
                    stampEnd(v, scratch, ring, tid);
                    stamped.add(tid);
                    continue;
                }
            }
            drained += drainRing(v, scratch, ring, tid, dead);
        }
        return drained;
    }

    /**
     * Hands one ring's pending events to {@code v}, handing each batch back to the producer only
     * once {@code v} has taken it (a ring file keeps what is not yet in the queue); a dead ring gets
     * its last call and is freed. Returns how many events it handed over.
     */
    private static int drainRing(RingVisitor v, ByteBuffer scratch, long ring, long tid, boolean dead) {
        int max = scratch.capacity() / SLOT_BYTES;
        int budget = NativeRing.pending(ring);
        int drained = 0;
        boolean visitedEnd = false;
        while (budget > 0) {
            int n = NativeRing.drain(ring, scratch, Math.min(budget, max));
            if (n <= 0) {
                break;
            }
            budget -= n;
            drained += n;
            boolean end = dead && budget == 0;
            scratch.clear().limit(n * SLOT_BYTES);
            v.batch(tid, scratch, n, NativeRing.lost(ring), end);
            NativeRing.consume(ring, n);
            visitedEnd = end;
        }
        if (dead) {
            if (!visitedEnd) {
                scratch.clear().limit(0);
                v.batch(tid, scratch, 0, NativeRing.lost(ring), true);
            }
            NativeRing.release(ring);
        }
        return drained;
    }

    /**
     * For a drainer in another process, which reads the ring files (docs/DESIGN.md, "The drainer in
     * its own process"): each bound ring's thread and head into {@code marks}; with {@code last} (the
     * host's end), for a ring whose thread has ended but is not yet marked dead, a tick read after its
     * head, its THREAD_END's upper bound as {@link #drainLast} stamps it. A ring without a file, which
     * the other process cannot see, is drained here into {@code v} instead and left out of the marks;
     * a ring with a file that is dead and that the other process has drained to its end is freed.
     * Native rings only; returns how many rings were marked.
     */
    public static synchronized int mark(RingMarks marks, boolean last, RingVisitor v, ByteBuffer scratch) {
        marks.clear();
        if (!NATIVE) {
            return 0;
        }
        checkScratch(scratch);
        scratch.order(ByteOrder.LITTLE_ENDIAN);
        int count;
        while ((count = NativeRing.listRings(handles)) == handles.length) {
            handles = new long[handles.length * 2];
        }
        for (int i = 0; i < count; i++) {
            long ring = handles[i];
            boolean dead = NativeRing.isDead(ring);
            long tid = NativeRing.threadId(ring);
            if (tid < 0) {
                continue;
            }
            if (!NativeRing.hasFile(ring)) {
                drainRing(v, scratch, ring, tid, dead);
                continue;
            }
            long head = NativeRing.head(ring);
            if (dead && NativeRing.pending(ring) == 0) {
                NativeRing.release(ring);
                continue;
            }
            marks.add(tid, head, last && !dead && hasEnded(tid) ? NativeClock.rdtsc() : 0);
        }
        return marks.count();
    }

    private static boolean hasEnded(long tid) {
        WeakReference<Thread> ref = NATIVE_THREADS.get(tid);
        if (ref == null) {
            return false;
        }
        Thread t = ref.get();
        return t == null || !t.isAlive();
    }

    /** One THREAD_END slot, stamped now on the rings' clock, as the ring's last batch. */
    private static void stampEnd(RingVisitor v, ByteBuffer scratch, long ring, long tid) {
        scratch.clear();
        scratch.putLong(0, NativeClock.rdtsc());
        scratch.putInt(8, NativeRing.THREAD_END_HEADER);
        scratch.putInt(12, 0);
        scratch.putLong(16, 0);
        scratch.putLong(24, 0);
        scratch.limit(SLOT_BYTES);
        v.batch(tid, scratch, 1, NativeRing.lost(ring), true);
    }

    private static void checkScratch(ByteBuffer scratch) {
        if (!scratch.isDirect() || scratch.capacity() < SLOT_BYTES) {
            throw new IllegalArgumentException("scratch must be a direct buffer of at least " + SLOT_BYTES + " bytes");
        }
    }
}
