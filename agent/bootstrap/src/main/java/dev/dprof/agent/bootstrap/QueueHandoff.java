package dev.dprof.agent.bootstrap;

import java.util.Collection;
import java.util.IdentityHashMap;

/**
 * One queue's handoffs: its channel and region, and the side table from each element in flight
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
 * before the agent) are entered unstamped, so a later put of the same reference is ambiguous too.</li>
 * <li>A nested put of the same element by the thread already inserting it (one JDK method
 * delegating to another) is recognised and ignored, so each logical put registers once.</li>
 * <li>Elements that leave another way (drainTo, remove, clear, an iterator) are purged by a
 * resync against a snapshot of the queue ({@link #resync}) and counted. Only entries whose insert
 * finished before the snapshot began and which the snapshot lacks are purged, and a purged entry
 * stays as a <em>grave</em> until the next resync: a put of its reference meanwhile is
 * ambiguous. A take whose call overlapped a resync (the resync epoch changed between its entry
 * and its end) records nothing and touches nothing. Together these make a purge lose edges, never
 * pair a take with another copy's put: a put that finds neither entry nor grave comes after a
 * second resync began, and any take still returning an older copy then saw the epoch change.</li>
 * </ul>
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Guarded by its own monitor, taken outside the queue's own locks (advice runs at the queue
 * method's entry and exit), so it can never deadlock with them; the epoch is also volatile, read
 * without the monitor at a take's entry.</li>
 * <li>Resync relies on {@code toArray} returning every element present throughout the call: true
 * of the lock-based queues (a snapshot under their lock) and of {@code LinkedTransferQueue},
 * whose traversal skips only matched nodes.</li>
 * <li>Allocation-free in steady state; a resync allocates its snapshot and runs when the table
 * has doubled since the last one (or after a bulk removal), so its cost per put is constant.</li>
 * <li>The region is registered when the queue is first used, so queues that are made and never
 * used (a {@code SynchronousQueue}'s internal transferer on JDK 25) name no region.</li>
 * </ul>
 */
final class QueueHandoff {
    /** Returned by {@link #put} when the put must not be bookkept at its end (nested, or not recorded). */
    static final long NESTED = -1;
    /** Returned by {@link #put} for a registered copy that must not be stamped (ambiguous). */
    static final long AMBIGUOUS = 0;
    /** Returned by {@link #takeEpoch} for a queue that is not recorded. */
    static final int NOT_RECORDED = -1;
    static final int FIRST_RESYNC = 64;
    private static final int GRAVE = 4;

    final long channel;
    /** False for the agent's own queues: nothing is recorded for them. */
    final boolean recorded;
    private final String kindClass;
    private final String site;
    private final IdentitySlots inFlight = new IdentitySlots(IdentitySlots.MIN_CAPACITY);
    /** The queue's region once it is used; written under the monitor, read by the thread that took it since. */
    int region = -1;
    private long nextSeq = 1;
    private volatile int epoch;
    private int resyncAt = FIRST_RESYNC;
    private int departures;

    QueueHandoff(long channel, String className, String site, boolean recorded) {
        this.channel = channel;
        this.kindClass = className;
        this.site = site;
        this.recorded = recorded;
    }

    /** Registers the queue's region on first use. Under the monitor. */
    private void register() {
        if (region < 0) {
            region = HandoffSites.region("queue", kindClass, site);
        }
    }

    /** Enters the elements present when the queue is first seen, unstamped (sequence 0). */
    synchronized void present(Object[] elements) {
        IdentitySlots t = inFlight;
        for (Object e : elements) {
            if (e == null) {
                continue;
            }
            int i = t.find(e);
            if (i < 0) {
                i = t.add(e);
            } else {
                t.flags[i] |= IdentitySlots.AMBIGUOUS;
            }
            t.counts[i]++;
        }
    }

    /**
     * Registers {@code element} before its insert. Returns the sequence number the caller stamps
     * (after the monitor, still before the insert: no taker can see the element yet) when it is the
     * only copy in flight, else {@link #AMBIGUOUS} or {@link #NESTED}.
     */
    synchronized long put(Object element, Thread current) {
        IdentitySlots t = inFlight;
        int i = t.find(element);
        if (i < 0) {
            i = t.add(element);
            long seq = nextSeq++;
            t.seqs[i] = seq;
            t.counts[i] = 1;
            t.pending[i] = 1;
            t.owners[i] = current;
            register();
            return seq;
        }
        if (t.pending[i] > 0 && t.owners[i] == current) {
            return NESTED;
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
        t.pending[i]++;
        t.owners[i] = current;
        return AMBIGUOUS;
    }

    /** At the end of a registered put: {@code inserted} says whether the element is in the queue now. */
    synchronized void putDone(Object element, boolean inserted) {
        IdentitySlots t = inFlight;
        int i = t.find(element);
        if (i < 0 || (t.flags[i] & GRAVE) != 0) {
            return; // taken already
        }
        if (t.pending[i] > 0 && --t.pending[i] == 0) {
            t.owners[i] = null;
        }
        if (inserted) {
            t.epochs[i] = epoch;
        } else if (--t.counts[i] <= 0) {
            t.removeAt(i);
        }
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
    synchronized long take(Object element, int entryEpoch) {
        if (entryEpoch != epoch) {
            HandoffStats.TAKES_DURING_RESYNC.increment();
            return 0;
        }
        IdentitySlots t = inFlight;
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

    /** Whether the table has grown enough since the last resync that one is due (a racy read is fine). */
    boolean resyncDue() {
        return inFlight.size() >= resyncAt;
    }

    /** An element left by a single removal; a resync is due once they add up to a quarter of the table. */
    synchronized boolean departed() {
        return ++departures * 4 >= inFlight.size();
    }

    /**
     * Purges the entries of elements no longer in {@code queue}: those whose insert finished before
     * the snapshot began and which the snapshot lacks become graves (counted as departed); the
     * graves of the previous resync go.
     */
    void resync(Collection<?> queue) {
        int snapshotEpoch;
        synchronized (this) {
            if (inFlight.size() == 0) {
                resyncAt = FIRST_RESYNC;
                departures = 0;
                return;
            }
            snapshotEpoch = epoch + 1;
            epoch = snapshotEpoch;
        }
        Object[] present = queue.toArray();
        IdentityHashMap<Object, Boolean> inQueue = new IdentityHashMap<>(present.length * 2 + 1);
        for (Object e : present) {
            inQueue.put(e, Boolean.TRUE);
        }
        synchronized (this) {
            IdentitySlots t = inFlight;
            Object[] drop = new Object[t.size()];
            int n = 0;
            for (int i = 0; i < t.capacity(); i++) {
                Object key = t.keys[i];
                if (key == null) {
                    continue;
                }
                if ((t.flags[i] & GRAVE) != 0) {
                    drop[n++] = key;
                } else if (t.pending[i] == 0 && t.epochs[i] < snapshotEpoch && !inQueue.containsKey(key)) {
                    HandoffStats.DEPARTED.add(t.counts[i]);
                    t.flags[i] = GRAVE;
                    t.counts[i] = 0;
                }
            }
            for (int j = 0; j < n; j++) {
                t.removeAt(t.find(drop[j]));
            }
            t.shrinkIfSparse();
            resyncAt = Math.max(FIRST_RESYNC, 2 * t.size());
            departures = 0;
        }
    }

    /** Entries held (elements in flight and graves): what a leak would make grow. */
    synchronized int inFlight() {
        return inFlight.size();
    }

    synchronized int capacity() {
        return inFlight.capacity();
    }
}
