package dev.dprof.agent.bootstrap;

import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One queue's handoffs, for the queues whose takes do not follow their insertion order or that
 * have no lock to count positions under ({@code PriorityBlockingQueue}, {@code DelayQueue}, the
 * scheduled pool's work queue, {@code LinkedTransferQueue}, {@code SynchronousQueue}; the FIFO
 * queues are keyed by position instead, {@link FifoHandoff}): its channel and region, and the side table from each element in flight
 * (by reference) to the sequence number its put recorded, which the take that returns the element
 * records again ({@link QueueHandoffs} says when each side runs).
 *
 * <p>What keeps every edge exact:
 * <ul>
 * <li>An element is registered before it is inserted, so a taker always finds it; a failed
 * insert (offer false, an exception) unregisters it.</li>
 * <li>An element whose reference is already in flight in this queue (a poison pill, a cached
 * boxed Integer, an enum) makes its entry ambiguous: no take of either copy records anything.
 * Elements already in the queue when it is first seen (its constructor's collection, a queue made
 * before the agent) are entered unstamped, so a later put of the same reference is ambiguous too.
 * So is a put nested in a put of the same element (one JDK method delegating to another, which
 * the weaver avoids by weaving leaves only): an edge lost, never a wrong one.</li>
 * <li>Elements that leave another way (drainTo, remove, clear, an iterator) are purged by a
 * resync against a snapshot of the queue ({@link #resync}) and counted. Only entries registered
 * before the snapshot began and which the snapshot lacks are purged, and a purged entry stays as a
 * <em>grave</em> until the next resync: a put of its reference meanwhile is ambiguous. A take
 * whose call overlapped a resync (the resync epoch changed between its entry and its end) records
 * nothing and touches nothing. Together these make a purge lose edges, never pair a take with
 * another copy's put: a put that finds neither entry nor grave comes after a second resync began,
 * and any take still returning an older copy then saw the epoch change. A put still blocked
 * when a resync snapshots the queue is purged too (its element is not in yet): its edge is lost.</li>
 * <li>Back-pressure of a rendezvous ({@link QueueHandoffs#afterRendezvous}): a take publishes its
 * key in {@link #took} after it stamped its event, so a put that waited for that take finds the key
 * only once the take is recorded, and its own back-pressure event comes after it.</li>
 * </ul>
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>The table is split into {@value #STRIPES} stripes by the element's identity, each guarded by
 * its own monitor: a producer and a consumer work on different elements, so they rarely meet on a
 * monitor and it stays thin (one compare-and-set), where one monitor for the queue was inflated by
 * their contention. Every rule above concerns one reference, so it holds within its stripe. A
 * put takes its stripe once (its bookkeeping at the end is folded into its entry; only a failed
 * insert takes it again), a take once at its end.</li>
 * <li>Keys are unique per queue without a shared counter: a stripe's own sequence number with
 * the stripe's index in the low {@value #STRIPE_BITS} bits.</li>
 * <li>Stripe monitors are taken outside the queue's own locks (advice runs at the queue method's
 * entry and exit), so they cannot deadlock with them. The epoch is volatile: a take reads it at its entry
 * without a monitor, a resync increments it before its snapshot, a put stamps it on its entry;
 * a stripe is purged under its monitor, after the increment, so a take that checks the epoch
 * under the same monitor either sees the new epoch or ran before the purge.</li>
 * <li>Resync relies on {@code toArray} returning every element present throughout the call: true
 * of the lock-based queues (a snapshot under their lock) and of {@code LinkedTransferQueue},
 * whose traversal skips only matched nodes.</li>
 * <li>Allocation-free in steady state; a resync allocates its snapshot and runs when a stripe has
 * doubled since the last one (or after a bulk removal), so its cost per put is constant. One
 * resync at a time; a put that finds one running leaves it be.</li>
 * <li>The region is registered when the queue is first used ({@link QueueSite}).</li>
 * </ul>
 */
final class QueueHandoff {
    /** Returned by {@link #put} when there is nothing to do at the put's end (not recorded). */
    static final long NESTED = -1;
    /** Returned by {@link #put} for a registered copy that must not be stamped (ambiguous). */
    static final long AMBIGUOUS = 0;
    /** Returned by {@link #takeEpoch} for a queue that is not recorded. */
    static final int NOT_RECORDED = -1;
    static final int STRIPE_BITS = 3;
    static final int STRIPES = 1 << STRIPE_BITS;
    /** Entries of one stripe at which its first resync is due. */
    static final int FIRST_RESYNC = 16;
    /** Keys of recent takes kept for back-pressure, by key. */
    static final int TOOK = 64;
    private static final int GRAVE = 4;

    final long channel;
    /** False for the agent's own queues: nothing is recorded for them. */
    final boolean recorded;
    private final QueueSite where;
    private final Stripe[] stripes = new Stripe[STRIPES];
    /** Recent takes' keys, slot {@code key % TOOK}; only for queues whose puts wait for a take (a rendezvous). */
    private final AtomicLongArray took;
    private volatile int epoch;
    private final AtomicBoolean resyncing = new AtomicBoolean();
    private final AtomicInteger departures = new AtomicInteger();

    /** One part of the side table; its monitor guards it. */
    private static final class Stripe {
        final IdentitySlots slots = new IdentitySlots(IdentitySlots.MIN_CAPACITY);
        final long index;
        long nextSeq = 1;
        int resyncAt = FIRST_RESYNC;

        Stripe(int index) {
            this.index = index;
        }
    }

    /**
     * @param waitsTake  whether a put may wait for a take (a rendezvous): keeps {@link #took}
     */
    QueueHandoff(long channel, String className, String site, boolean recorded, boolean waitsTake) {
        this.channel = channel;
        this.where = new QueueSite(className, site);
        this.recorded = recorded;
        this.took = waitsTake && recorded ? new AtomicLongArray(TOOK) : null;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(i);
        }
    }

    QueueHandoff(long channel, String className, String site, boolean recorded) {
        this(channel, className, site, recorded, false);
    }

    private Stripe stripe(Object element) {
        // The top bits of a Fibonacci hash: independent of the low bits that pick a slot within the stripe.
        return stripes[System.identityHashCode(element) * 0x9E3779B9 >>> 32 - STRIPE_BITS];
    }

    int region() {
        return where.region();
    }

    /** Enters the elements present when the queue is first seen, unstamped (sequence 0). */
    void present(Object[] elements) {
        for (Object e : elements) {
            if (e == null) {
                continue;
            }
            Stripe s = stripe(e);
            synchronized (s) {
                IdentitySlots t = s.slots;
                int i = t.find(e);
                if (i < 0) {
                    i = t.add(e);
                } else {
                    t.flags[i] |= IdentitySlots.AMBIGUOUS;
                }
                t.counts[i]++;
            }
        }
    }

    /**
     * Registers {@code element} before its insert, as if inserted ({@link #putFailed} undoes it).
     * Returns the sequence number the caller stamps (after the monitor, still before the insert: no
     * taker can see the element yet) when it is the only copy in flight, else {@link #AMBIGUOUS}.
     */
    long put(Object element) {
        Stripe s = stripe(element);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(element);
            if (i < 0) {
                i = t.add(element);
                long seq = s.nextSeq++ << STRIPE_BITS | s.index;
                t.seqs[i] = seq;
                t.counts[i] = 1;
                t.epochs[i] = epoch;
                return seq;
            }
            if ((t.flags[i] & GRAVE) != 0) {
                // Purged at the last resync: a take of the purged copy may still be returning.
                t.flags[i] = IdentitySlots.AMBIGUOUS;
                t.counts[i] = 0;
                HandoffStats.AMBIGUOUS.increment();
            } else if ((t.flags[i] & IdentitySlots.AMBIGUOUS) == 0) {
                t.flags[i] |= IdentitySlots.AMBIGUOUS;
                HandoffStats.AMBIGUOUS.add(2);
            } else {
                HandoffStats.AMBIGUOUS.increment();
            }
            t.counts[i]++;
            t.epochs[i] = epoch;
            return AMBIGUOUS;
        }
    }

    /** A put that {@link #put} registered did not insert (offer false, an exception). */
    void putFailed(Object element) {
        Stripe s = stripe(element);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(element);
            if (i < 0 || (t.flags[i] & GRAVE) != 0) {
                return; // purged meanwhile
            }
            if (--t.counts[i] <= 0) {
                t.removeAt(i);
            }
        }
    }

    /** Whether the stripe of an element just put has grown enough that a resync is due (a racy read is fine). */
    boolean resyncDue(Object element) {
        Stripe s = stripe(element);
        return s.slots.size() >= s.resyncAt;
    }

    /** At a take's entry: the resync epoch, which {@link #take} compares. */
    int takeEpoch() {
        return recorded ? epoch : NOT_RECORDED;
    }

    /**
     * After a take returned {@code element}: the element's sequence number, which the caller stamps
     * after the monitor, when it is exact (0: nothing to stamp). Nothing is changed if a resync
     * began since {@code entryEpoch}.
     */
    long take(Object element, int entryEpoch) {
        Stripe s = stripe(element);
        synchronized (s) {
            if (entryEpoch != epoch) {
                HandoffStats.TAKES_DURING_RESYNC.increment();
                return 0;
            }
            IdentitySlots t = s.slots;
            int i = t.find(element);
            if (i < 0) {
                HandoffStats.UNMATCHED_TAKES.increment();
                return 0;
            }
            if ((t.flags[i] & GRAVE) != 0) {
                t.removeAt(i);
                return 0;
            }
            long seq = (t.flags[i] & IdentitySlots.AMBIGUOUS) == 0 ? t.seqs[i] : 0;
            if (--t.counts[i] <= 0) {
                t.removeAt(i);
            }
            return seq;
        }
    }

    /** After the take of {@code key} stamped its event: published for the puts that waited for it. */
    void took(long key) {
        AtomicLongArray k = took;
        if (k != null) {
            k.lazySet((int) (key & TOOK - 1), key); // a release store: the stamp before it is visible first
        }
    }

    /** Whether the take of {@code key} has been recorded (and not yet overwritten by a later key). */
    boolean wasTaken(long key) {
        AtomicLongArray k = took;
        return k != null && key > 0 && k.get((int) (key & TOOK - 1)) == key;
    }

    /** An element left by a single removal; a resync is due once they add up to a quarter of the table. */
    boolean departed() {
        return departures.incrementAndGet() * 4 >= inFlight();
    }

    /**
     * Purges the entries of elements no longer in {@code queue}: those registered before the
     * snapshot began and which the snapshot lacks become graves (counted as departed); the graves of
     * the previous resync go. Skipped if another resync is running.
     */
    void resync(Collection<?> queue) {
        if (!resyncing.compareAndSet(false, true)) {
            return;
        }
        try {
            if (inFlight() == 0) {
                for (Stripe s : stripes) {
                    synchronized (s) {
                        s.resyncAt = FIRST_RESYNC;
                    }
                }
                departures.set(0);
                return;
            }
            int snapshotEpoch = epoch + 1; // only resyncs write the epoch, one at a time
            epoch = snapshotEpoch;
            Object[] present = queue.toArray();
            IdentityHashMap<Object, Boolean> inQueue = new IdentityHashMap<>(present.length * 2 + 1);
            for (Object e : present) {
                inQueue.put(e, Boolean.TRUE);
            }
            for (Stripe s : stripes) {
                synchronized (s) {
                    purge(s.slots, snapshotEpoch, inQueue);
                    s.resyncAt = Math.max(FIRST_RESYNC, 2 * s.slots.size());
                }
            }
            departures.set(0);
        } finally {
            resyncing.set(false);
        }
    }

    private static void purge(IdentitySlots t, int snapshotEpoch, IdentityHashMap<Object, Boolean> inQueue) {
        if (t.size() == 0) {
            return;
        }
        Object[] drop = new Object[t.size()];
        int n = 0;
        for (int i = 0; i < t.capacity(); i++) {
            Object key = t.keys[i];
            if (key == null) {
                continue;
            }
            if ((t.flags[i] & GRAVE) != 0) {
                drop[n++] = key;
            } else if (t.epochs[i] < snapshotEpoch && !inQueue.containsKey(key)) {
                HandoffStats.DEPARTED.add(t.counts[i]);
                t.flags[i] = GRAVE;
                t.counts[i] = 0;
            }
        }
        for (int j = 0; j < n; j++) {
            t.removeAt(t.find(drop[j]));
        }
        t.shrinkIfSparse();
    }

    /** Entries held (elements in flight and graves): what a leak would make grow. */
    int inFlight() {
        int n = 0;
        for (Stripe s : stripes) {
            synchronized (s) {
                n += s.slots.size();
            }
        }
        return n;
    }

    int capacity() {
        int n = 0;
        for (Stripe s : stripes) {
            synchronized (s) {
                n += s.slots.capacity();
            }
        }
        return n;
    }
}
