package dev.dprof.agent.bootstrap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pure-Java stand-in for {@link NativeRing}, used when the native library cannot load: same
 * SPSC semantics, slot layout and return codes, ticks from {@link System#nanoTime()} and cpu 0.
 *
 * <p>Differences the consumer may see: THREAD_END is stamped by the drainer when it notices the
 * thread is gone ({@code !isAlive()} or the weak reference cleared), so its tick is an upper bound
 * of the real exit; the thread id is known at creation, so rings are never unbound. Like a native
 * ring, a ring belongs to an OS thread: a virtual thread records on its carrier's.
 */
final class JavaRing {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle LOST;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(JavaRing.class, "head", long.class);
            TAIL = l.findVarHandle(JavaRing.class, "tail", long.class);
            LOST = l.findVarHandle(JavaRing.class, "lost", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The carrier's ring: a virtual thread records on its carrier's, as with the native rings. */
    private static final ThreadLocal<JavaRing> CURRENT = VirtualThreads.carrierLocal();
    private static final ConcurrentLinkedQueue<JavaRing> ALL = new ConcurrentLinkedQueue<>();
    private static final AtomicLong RELEASED_LOST = new AtomicLong();
    private static final AtomicLong UNATTACHED_LOST = new AtomicLong();
    private static volatile int ringEvents = 4096;

    /** Four longs per slot: tick, header | cpu << 32 (= bytes 8..15 in little endian), a, b. */
    private final long[] slots;
    private final long mask;
    private final WeakReference<Thread> owner;
    final long javaThreadId;

    // head: producer writes (release), consumer reads (acquire); tail the other way round.
    private volatile long head;
    private volatile long tail;
    private volatile long lost;
    private long tailCache;
    // Consumer-only: whether the drainer already stamped THREAD_END.
    private boolean ended;

    private JavaRing(Thread t, int events) {
        slots = new long[events * 4];
        mask = events - 1;
        owner = new WeakReference<>(t);
        javaThreadId = t.getId();
    }

    /** Size of rings created from now on (a power of two, else 4096). */
    static void configure(int events) {
        boolean ok = events >= NativeRing.MIN_RING_EVENTS && events <= NativeRing.MAX_RING_EVENTS
                && (events & (events - 1)) == 0;
        ringEvents = ok ? events : 4096;
    }

    /** Same contract as {@link NativeRing#record2}: 0 stored, 1 stored in a new ring, -1 dropped. */
    static int record(int header, long a, long b) {
        JavaRing r = CURRENT.get();
        if (r != null) {
            return r.put(System.nanoTime(), header, a, b);
        }
        r = create();
        if (r == null) {
            UNATTACHED_LOST.incrementAndGet();
            return -1;
        }
        r.put(System.nanoTime(), NativeRing.THREAD_START_HEADER, 0, 0);
        return r.put(System.nanoTime(), header, a, b) == 0 ? 1 : -1;
    }

    private static JavaRing create() {
        try {
            JavaRing r = new JavaRing(VirtualThreads.currentCarrier(), ringEvents);
            ALL.add(r);
            CURRENT.set(r);
            return r;
        } catch (OutOfMemoryError e) {
            return null;
        }
    }

    private int put(long tick, int header, long a, long b) {
        long h = (long) HEAD.getOpaque(this);
        if (h - tailCache > mask) {
            tailCache = (long) TAIL.getAcquire(this);
            if (h - tailCache > mask) {
                LOST.setRelease(this, (long) LOST.getOpaque(this) + 1);
                return -1;
            }
        }
        int i = (int) (h & mask) << 2;
        slots[i] = tick;
        slots[i + 1] = header & 0xFFFF_FFFFL;
        slots[i + 2] = a;
        slots[i + 3] = b;
        HEAD.setRelease(this, h + 1);
        return 0;
    }

    /**
     * Whether the owner is gone; the first time it is, stamps THREAD_END. Only the drainer calls
     * this, and a terminated thread writes no more, so the drainer may act as the producer.
     * {@code isAlive() == false} makes the thread's last writes visible (JLS 17.4.4).
     */
    private boolean checkDead() {
        if (ended) {
            return true;
        }
        Thread t = owner.get();
        if (t != null && t.isAlive()) {
            return false;
        }
        put(System.nanoTime(), NativeRing.THREAD_END_HEADER, 0, 0);
        ended = true;
        return true;
    }

    private int pending() {
        return (int) ((long) HEAD.getAcquire(this) - tail);
    }

    private int drainTo(ByteBuffer dst, int max) {
        long t = tail;
        long n = Math.min((long) HEAD.getAcquire(this) - t, max);
        for (int k = 0; k < n; k++) {
            int i = (int) ((t + k) & mask) << 2;
            int o = k * NativeRing.SLOT_BYTES;
            dst.putLong(o, slots[i]);
            dst.putLong(o + 8, slots[i + 1]);
            dst.putLong(o + 16, slots[i + 2]);
            dst.putLong(o + 24, slots[i + 3]);
        }
        TAIL.setRelease(this, t + n);
        return (int) n;
    }

    /** Drains every ring into {@code v}, returns how many events; see {@link Rings#drain}. One drainer at a time. */
    static int drainAll(RingVisitor v, ByteBuffer scratch) {
        scratch.order(ByteOrder.LITTLE_ENDIAN);
        int max = scratch.capacity() / NativeRing.SLOT_BYTES;
        int drained = 0;
        for (Iterator<JavaRing> it = ALL.iterator(); it.hasNext(); ) {
            JavaRing r = it.next();
            boolean dead = r.checkDead();
            int budget = r.pending();
            boolean visitedEnd = false;
            while (budget > 0) {
                scratch.clear();
                int n = r.drainTo(scratch, Math.min(budget, max));
                budget -= n;
                drained += n;
                boolean end = dead && budget == 0;
                scratch.limit(n * NativeRing.SLOT_BYTES);
                v.batch(r.javaThreadId, scratch, n, r.lost, end);
                visitedEnd = end;
            }
            if (dead) {
                if (!visitedEnd) {
                    scratch.clear().limit(0);
                    v.batch(r.javaThreadId, scratch, 0, r.lost, true);
                }
                it.remove();
                RELEASED_LOST.addAndGet(r.lost);
            }
        }
        return drained;
    }

    /** Events lost by all rings ever, released ones included. */
    static long totalLost() {
        long total = RELEASED_LOST.get() + UNATTACHED_LOST.get();
        for (JavaRing r : ALL) {
            total += r.lost;
        }
        return total;
    }
}
