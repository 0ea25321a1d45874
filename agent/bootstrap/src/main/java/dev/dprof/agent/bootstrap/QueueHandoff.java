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
 * boxed Integer, an enum) makes its entry ambiguous: no take of either copy records anything.</li>
 * <li>A nested put of the same element by the thread already inserting it (one JDK method
 * delegating to another) is recognised and ignored, so each logical put registers once.</li>
 * <li>Elements that leave another way are purged by a resync against a snapshot of the queue
 * ({@link #resync}) and counted; a purge can lose an edge (a take whose probe had not run yet) but
 * never make a wrong one, because only entries whose insert finished before the snapshot began
 * and which the snapshot lacks are purged.</li>
 * </ul>
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Guarded by its own monitor, taken outside the queue's own locks (advice runs at the queue
 * method's entry and exit), so it can never deadlock with them.</li>
 * <li>Resync relies on {@code toArray} returning every element present throughout the call: true
 * of the lock-based queues (a snapshot under their lock) and of {@code LinkedTransferQueue},
 * whose traversal skips only matched nodes.</li>
 * <li>Allocation-free in steady state; a resync allocates its snapshot, and runs when the table
 * has doubled since the last one, so its cost per put is constant.</li>
 * </ul>
 */
final class QueueHandoff {
    /** Returned by {@link #put} when the put must not be bookkept at its end (nested, or not recorded). */
    static final long NESTED = -1;
    /** Returned by {@link #put} for a registered copy of an ambiguous element: nothing to stamp. */
    static final long AMBIGUOUS = 0;
    static final int FIRST_RESYNC = 64;

    final long channel;
    final int region;
    /** False for the agent's own queues: nothing is recorded for them. */
    final boolean recorded;
    private final IdentitySlots inFlight = new IdentitySlots(IdentitySlots.MIN_CAPACITY);
    private long nextSeq = 1;
    private int epoch;
    private int resyncAt = FIRST_RESYNC;
    private int departures;

    QueueHandoff(long channel, int region, boolean recorded) {
        this.channel = channel;
        this.region = region;
        this.recorded = recorded;
    }

    /**
     * Registers {@code element} before its insert: its sequence number (to stamp the put with),
     * {@link #AMBIGUOUS} if its reference is already in flight here, or {@link #NESTED}.
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
            return seq;
        }
        if (t.pending[i] > 0 && t.owners[i] == current) {
            return NESTED;
        }
        if ((t.flags[i] & IdentitySlots.AMBIGUOUS) == 0) {
            t.flags[i] |= IdentitySlots.AMBIGUOUS;
            HandoffStats.AMBIGUOUS.increment();
        }
        HandoffStats.AMBIGUOUS.increment();
        t.counts[i]++;
        t.pending[i]++;
        t.owners[i] = current;
        return AMBIGUOUS;
    }

    /** At the end of a registered put: {@code inserted} says whether the element is in the queue now. */
    synchronized void putDone(Object element, boolean inserted) {
        IdentitySlots t = inFlight;
        int i = t.find(element);
        if (i < 0) {
            return; // taken already, or (failed) never visible
        }
        if (t.pending[i] > 0) {
            t.pending[i]--;
        }
        if (t.pending[i] == 0) {
            t.owners[i] = null;
        }
        if (inserted) {
            t.epochs[i] = epoch;
        } else if (--t.counts[i] <= 0) {
            t.removeAt(i);
        }
    }

    /** The sequence number to stamp the take of {@code element} with, or 0 when there is none to stamp. */
    synchronized long take(Object element) {
        IdentitySlots t = inFlight;
        int i = t.find(element);
        if (i < 0) {
            HandoffStats.UNMATCHED_TAKES.increment();
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
     * the snapshot began and which the snapshot lacks. Counted as departed.
     */
    void resync(Collection<?> queue) {
        int snapshotEpoch;
        synchronized (this) {
            if (inFlight.size() == 0) {
                resyncAt = FIRST_RESYNC;
                departures = 0;
                return;
            }
            snapshotEpoch = ++epoch;
        }
        Object[] present = queue.toArray();
        IdentityHashMap<Object, Boolean> inQueue = new IdentityHashMap<>(present.length * 2 + 1);
        for (Object e : present) {
            inQueue.put(e, Boolean.TRUE);
        }
        synchronized (this) {
            IdentitySlots t = inFlight;
            Object[] gone = new Object[t.size()];
            int n = 0;
            for (int i = 0; i < t.capacity(); i++) {
                Object key = t.keys[i];
                if (key != null && t.pending[i] == 0 && t.epochs[i] < snapshotEpoch && !inQueue.containsKey(key)) {
                    gone[n++] = key;
                }
            }
            for (int j = 0; j < n; j++) {
                int i = t.find(gone[j]);
                HandoffStats.DEPARTED.add(t.counts[i]);
                t.removeAt(i);
            }
            t.shrinkIfSparse();
            resyncAt = Math.max(FIRST_RESYNC, 2 * t.size());
            departures = 0;
        }
    }

    synchronized int inFlight() {
        return inFlight.size();
    }
}
