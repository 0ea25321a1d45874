package dev.dprof.agent.bootstrap;

import dev.dprof.format.HandoffRegions;
import java.util.Collection;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TransferQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * What the advice woven into the JDK's blocking queues calls ({@code HandoffRegions.Kind.QUEUE}):
 * a put is stamped ({@code HANDOFF_PUT}, channel = the queue's, key) before the element can be
 * seen by any taker, and the take that returns it stamps {@code HANDOFF_TAKE} with the same payload
 * after it took it. Executors built on these queues ({@code ThreadPoolExecutor},
 * {@code ScheduledThreadPoolExecutor}) get their submit→run-start edges from them.
 *
 * <p>Two ways to key a queue's elements. The FIFO queues ({@code ArrayBlockingQueue},
 * {@code LinkedBlockingQueue}, {@code LinkedBlockingDeque}) are keyed by position
 * ({@link FifoHandoff}): the advice runs in their private leaf methods, under their own locks —
 * {@code enqueue}/{@code dequeue}, {@code linkFirst}/{@code linkLast}/{@code unlinkFirst}/{@code unlinkLast}
 * — and in the two that remove from the middle ({@code removeAt}, {@code unlink});
 * {@code clear}, {@code drainTo}, {@code removeIf}, {@code removeAll}, {@code retainAll} and a
 * deque's {@code addAll} are bracketed by a window ({@link #fifoWindowOpen}). The others ({@code PriorityBlockingQueue},
 * {@code DelayQueue}, the scheduled pool's work queue, {@code LinkedTransferQueue},
 * {@code SynchronousQueue}), whose removal order is not their insertion order or who have no lock,
 * find each element again by reference in a side table ({@link QueueHandoff}), with advice at the
 * public methods' entry and exit.
 *
 * <p><b>Back-pressure</b> (docs/FORMAT.md, "Handoffs"): a blocking put ({@code put},
 * {@code offer} with a timeout, their deque forms) that finds its bounded FIFO queue full cannot
 * insert before some element leaves. Under the queue's consumer lock, so that nothing can leave
 * meanwhile, it confirms the queue is full and reads the key {@code k} the take of the head will
 * record ({@link #fifoPressure}). The first element to leave after that moment is that head — takes
 * remove the head, and no insert is possible while the queue is full — unless something else
 * removed an element: any other removal ({@code remove(Object)}, {@code drainTo}, {@code clear},
 * {@code removeIf}…, an iterator's {@code remove}, a deque's take from its tail) is bracketed by
 * two process-wide counters ({@link #beforeOtherRemoval}), and a put during which one began or
 * was running records nothing. So the take of {@code k} happened after the put found the queue
 * full and before it inserted. Once the put returned, it records {@code HANDOFF_TAKE} with channel
 * {@code channel | BACK_PRESSURE} and key {@code k}; otherwise nothing (counted,
 * {@link HandoffStats#PRESSURE_DROPPED}). The take of {@code k} records exactly {@code k}: the key
 * is read from the same count, and a window or a rebuild that could change it comes from a removal
 * that is bracketed. Its event is recorded before the put's: it is stamped under the queue's
 * consumer lock before the take's count frees the space the put fills.
 *
 * <p>A rendezvous — {@code SynchronousQueue.put} and timed {@code offer},
 * {@code LinkedTransferQueue.transfer} and timed {@code tryTransfer} — returns only once a taker
 * has its element: it records the back-pressure take of its <em>own</em> key, under the same
 * condition that the take is recorded already. Untimed {@code offer}/{@code tryTransfer} never
 * wait and record none.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>A queue's state is found by identity in a lock-free weak map (one per way of keying); it is
 * made when the queue is constructed ({@link #constructed}, which names its site) or, for a queue
 * made before the agent or met first inside its own constructor, when it is first used. Making it
 * never waits for a queue's lock: the map's monitor may be taken with one held.</li>
 * <li>FIFO queues: two probe events per handoff and no other lock; a put increments the
 * producer's counter, a take the consumer's, each under the lock its side holds anyway
 * ({@link FifoHandoff}). Both stamp while the queue's lock is held: the put before the element
 * can be seen, the take after it left.</li>
 * <li>Side tables: a put takes its element's stripe monitor once, a take once (a failed insert once
 * more), and the probes run outside them ({@link QueueHandoff}).</li>
 * <li>Back-pressure costs a blocking put on a bounded queue a racy read of the queue's count (which
 * the advice passes in) when the queue is not full; only a put that is about to block takes the
 * queue's lock once more.</li>
 * <li>Nothing here throws into the host: the advice suppresses and counts any failure.</li>
 * </ul>
 */
public final class QueueHandoffs {
    private static final WeakIdentityMap<QueueHandoff> QUEUES = new WeakIdentityMap<>();
    private static final WeakIdentityMap<FifoHandoff> FIFOS = new WeakIdentityMap<>();
    /** A queue first met in use: the application's, unless one of the agent's threads is first to use it. */
    private static final Function<Object, QueueHandoff> MET_LATE = q -> make(q,
            AgentThreads.isOwn(Thread.currentThread()) ? null : HandoffSites.BEFORE_AGENT);
    /** A FIFO queue first met in use, or inside its own constructor (whose site it then gets). */
    private static final Function<Object, FifoHandoff> FIFO_MET_LATE = q -> makeFifo(q,
            AgentThreads.isOwn(Thread.currentThread()) ? null : HandoffSites.siteMetLate(q));
    /** Removals other than a take of the head, begun and ended, in every queue of the process. */
    private static final AtomicLong OTHER_REMOVALS_BEGUN = new AtomicLong();
    private static final AtomicLong OTHER_REMOVALS_ENDED = new AtomicLong();
    /** How many times a put that waited yields for the take it waited for to be recorded. */
    static final int PRESSURE_YIELDS = 4;
    /** {@link #fifoPressure}'s answer when the put records no back-pressure. */
    public static final long NO_PRESSURE = 0;

    private QueueHandoffs() {
    }

    /** Whether the FIFO queues can be keyed by position here (the JDK's internals are open to the probes). */
    public static boolean fifoKeys() {
        return QueueInternals.AVAILABLE;
    }

    /** At the end of a queue's constructor: names its site (nested constructors find it made). */
    public static void constructed(Object queue) {
        if (QueueInternals.kind(queue) >= 0) {
            if (FIFOS.get(queue) == null) {
                String site = HandoffSites.constructionSite();
                FIFOS.computeIfAbsent(queue, q -> makeFifo(q, site));
            }
        } else if (QUEUES.get(queue) == null) {
            String site = HandoffSites.constructionSite();
            QUEUES.computeIfAbsent(queue, q -> make(q, site));
        }
    }

    private static QueueHandoff make(Object queue, String site) {
        if (site == null) {
            return new QueueHandoff(0, null, null, false);
        }
        boolean rendezvous = queue instanceof SynchronousQueue<?> || queue instanceof TransferQueue<?>;
        QueueHandoff q = new QueueHandoff(HandoffSites.newChannel(), HandoffSites.className(queue), site, true,
                rendezvous);
        if (queue instanceof Collection<?> c) {
            // What the constructor's collection (or life before the agent) put in, unregistered.
            q.present(c.toArray());
        }
        return q;
    }

    /** Takes no lock of the queue: it may run under the map's monitor with one of them held. */
    private static FifoHandoff makeFifo(Object queue, String site) {
        int kind = QueueInternals.kind(queue);
        if (site == null || kind < 0) {
            return new FifoHandoff(0, null, null, false, 0, kind, null, null);
        }
        return new FifoHandoff(HandoffSites.newChannel(), HandoffSites.className(queue), site, true,
                QueueInternals.capacity(queue, kind), kind, QueueInternals.producerLock(queue, kind),
                QueueInternals.consumerLock(queue, kind));
    }

    private static QueueHandoff of(Object queue) {
        QueueHandoff q = QUEUES.get(queue);
        return q != null ? q : QUEUES.computeIfAbsent(queue, MET_LATE);
    }

    private static FifoHandoff fifo(Object queue) {
        FifoHandoff f = FIFOS.get(queue);
        return f != null ? f : FIFOS.computeIfAbsent(queue, FIFO_MET_LATE);
    }

    // FIFO queues: called from the leaf methods, under the queue's locks (FifoHandoff says which).

    /**
     * An element was linked at the tail ({@code ArrayBlockingQueue.enqueue} and
     * {@code LinkedBlockingDeque.linkLast} at their end, {@code LinkedBlockingQueue.enqueue} at its
     * entry; the producer lock held): stamps its put.
     */
    public static void fifoPut(Object queue) {
        FifoHandoff f = fifo(queue);
        if (!f.recorded || f.lost && !rebuildAtPut(f, queue)) {
            return;
        }
        Probes.handoffPut(f.region(), f.channel, f.putLast());
    }

    /** An element was linked at a deque's head ({@code linkFirst}, at its end; the lock held): stamps its put. */
    public static void fifoPutFirst(Object queue) {
        FifoHandoff f = fifo(queue);
        if (!f.recorded || f.lost && !rebuildAtPut(f, queue)) {
            return;
        }
        Probes.handoffPut(f.region(), f.channel, f.putFirst());
    }

    /**
     * The take side is rebuilt by a put, with the producer lock held: the consumer's is taken too
     * (in the order the queue's own full lock takes them). The elements present before this put
     * are of unknown numbers; this put is numbered.
     */
    private static boolean rebuildAtPut(FifoHandoff f, Object queue) {
        ReentrantLock consumer = f.consumerLock;
        consumer.lock(); // the one lock again (reentrant), or takeLock after putLock
        try {
            if (f.lost) {
                // LinkedBlockingQueue's enqueue has not linked nor counted the element yet; the others counted it.
                int counted = f.kind == FifoHandoff.LINKED ? 0 : 1;
                f.forgetAll(QueueInternals.count(queue, f.kind) - counted);
            }
            return true;
        } finally {
            consumer.unlock();
        }
    }

    /**
     * The head was removed ({@code ArrayBlockingQueue.dequeue}, {@code LinkedBlockingQueue.dequeue},
     * {@code LinkedBlockingDeque.unlinkFirst}, at their end; the consumer lock held): stamps its
     * take. Returns the key recorded, or 0.
     */
    public static long fifoTake(Object queue) {
        FifoHandoff f = fifo(queue);
        if (!f.recorded || f.lost && !rebuildAtTake(f, queue)) {
            return 0;
        }
        long key = f.takeFirst();
        if (key > 0) {
            Probes.handoffTake(f.region(), f.channel, key);
        }
        return key;
    }

    /** A deque's tail was removed ({@code unlinkLast}, at its end; the lock held): stamps its take. */
    public static long fifoTakeLast(Object queue) {
        FifoHandoff f = fifo(queue);
        if (!f.recorded || f.lost && !rebuildAtTake(f, queue)) {
            return 0;
        }
        long key = f.takeLast();
        if (key > 0) {
            Probes.handoffTake(f.region(), f.channel, key);
        }
        return key;
    }

    /**
     * The take side is rebuilt by a take, with the consumer lock held: the producer's is only
     * tried (taking it after takeLock could deadlock with the queue's full lock); if it is busy the
     * take records nothing and a later one tries again. The element just taken is one of unknown number.
     */
    private static boolean rebuildAtTake(FifoHandoff f, Object queue) {
        ReentrantLock producer = f.producerLock;
        if (producer != null && !producer.tryLock()) {
            f.countLostTake();
            return false;
        }
        try {
            if (f.lost) {
                // LinkedBlockingQueue's take decrements its count after dequeue returns; the others before.
                int counted = f.kind == FifoHandoff.LINKED ? 0 : 1;
                f.forgetAll(QueueInternals.count(queue, f.kind) + counted);
            }
            return true;
        } finally {
            if (producer != null) {
                producer.unlock();
            }
        }
    }

    /**
     * {@code ArrayBlockingQueue.removeAt} is about to remove the element at {@code position} from
     * the head (both locks held: its one lock).
     */
    public static void fifoRemoveAt(Object queue, int position) {
        FifoHandoff f = fifo(queue);
        if (f.recorded) {
            removeAt(f, queue, position);
        }
    }

    /** {@code LinkedBlockingQueue.unlink} is about to remove {@code node} (both locks held). */
    public static void fifoUnlink(Object queue, Object node) {
        FifoHandoff f = fifo(queue);
        if (f.recorded) {
            removeAt(f, queue, f.inWindow() ? -1 : QueueInternals.linkedPosition(queue, node));
        }
    }

    /**
     * {@code LinkedBlockingDeque.unlink} is about to remove {@code node} (its lock held); one at
     * either end is removed by {@code unlinkFirst} or {@code unlinkLast}, whose own advice counts it.
     */
    public static void fifoDequeUnlink(Object queue, Object node) {
        FifoHandoff f = fifo(queue);
        if (f.recorded && QueueInternals.dequeInterior(node)) {
            removeAt(f, queue, f.inWindow() ? -1
                    : QueueInternals.dequePosition(queue, node, QueueInternals.count(queue, f.kind)));
        }
    }

    private static void removeAt(FifoHandoff f, Object queue, long position) {
        int present = QueueInternals.count(queue, f.kind);
        if (f.lost) {
            f.forgetAll(present);
        }
        f.removeAt(position, present);
    }

    /**
     * At the entry of {@code clear}, {@code drainTo}, {@code removeIf}… or a deque's
     * {@code addAll}: from here until {@link #fifoWindowClose} takes record nothing and removals
     * from the middle are left to the window's end. Returns whether the window was opened.
     */
    public static boolean fifoWindowOpen(Object queue) {
        FifoHandoff f = fifo(queue);
        if (!f.recorded) {
            return false;
        }
        ReentrantLock consumer = f.consumerLock;
        consumer.lock();
        try {
            f.openWindow();
        } finally {
            consumer.unlock();
        }
        return true;
    }

    /**
     * At the end of a window: {@code drained} elements left the head ({@code drainTo} returned),
     * or, if {@code drained < 0} (a {@code clear}, a bulk removal, an {@code addAll}, a
     * {@code drainTo} that threw) or a removal from the middle ran meanwhile, the take side is
     * rebuilt from the queue's count under both locks.
     */
    public static void fifoWindowClose(Object queue, boolean opened, long drained) {
        if (!opened) {
            return;
        }
        FifoHandoff f = fifo(queue);
        ReentrantLock consumer = f.consumerLock;
        if (drained >= 0) {
            consumer.lock();
            try {
                if (!f.dirty()) {
                    f.dropFirst(drained);
                    f.closeWindow();
                    return;
                }
            } finally {
                consumer.unlock();
            }
            // A removal from the middle was left to this end: rebuild, under both locks, taken in
            // the queue's order (the window stays open meanwhile, so takes record nothing).
        }
        ReentrantLock producer = f.producerLock;
        if (producer != null) {
            producer.lock();
        }
        consumer.lock();
        try {
            int present = QueueInternals.count(queue, f.kind);
            HandoffStats.DEPARTED.add(Math.max(0, f.accounted() - present));
            f.forgetAll(present);
            f.closeWindow();
        } finally {
            consumer.unlock();
            if (producer != null) {
                producer.unlock();
            }
        }
    }

    /**
     * At the entry of a blocking put on a bounded FIFO queue: if the queue is full, the key of the
     * take it waits for, that of the head (else {@link #NO_PRESSURE}). {@code count} is the
     * queue's count as the advice read it without the lock (only a full queue goes on);
     * {@code removals} is {@link #otherRemovalsQuiet()} read just before.
     */
    public static long fifoPressure(Object queue, int count, long removals) {
        FifoHandoff f = fifo(queue);
        if (!f.recorded || f.capacity == 0 || count < f.capacity || removals < 0) {
            return NO_PRESSURE;
        }
        ReentrantLock consumer = f.consumerLock;
        consumer.lock();
        try {
            // Holding the lock every removal needs: nothing leaves until we let go, and nothing
            // can be inserted into a full queue, so the head is what leaves first afterwards.
            return QueueInternals.count(queue, f.kind) < f.capacity ? NO_PRESSURE : f.headKey();
        } finally {
            consumer.unlock();
        }
    }

    /**
     * Other removals' count if none is running (read before {@link #fifoPressure}), else -1: the
     * ended count first, so a removal that began before the begun count was read and is still
     * running makes them differ.
     */
    public static long otherRemovalsQuiet() {
        long ended = OTHER_REMOVALS_ENDED.get();
        long begun = OTHER_REMOVALS_BEGUN.get();
        return begun == ended ? begun : -1;
    }

    /**
     * At the end of a blocking put that {@link #fifoPressure} found waiting for the take of
     * {@code key}: records the back-pressure take if the put inserted ({@code returned} is not
     * {@code false}, nothing thrown), no other removal began since {@code removals}, and the take's
     * own event is recorded. Returns the key recorded, or 0.
     */
    public static long afterPressure(Object queue, long key, long removals, Object returned, Throwable thrown) {
        if (key == NO_PRESSURE || thrown != null || Boolean.FALSE.equals(returned)) {
            return 0;
        }
        FifoHandoff f = fifo(queue);
        if (OTHER_REMOVALS_BEGUN.get() == removals) {
            // The take of the head is stamped under the queue's lock, before its count frees the
            // space this put took: its event is recorded already, no need to wait for it.
            Probes.handoffTake(f.region(), f.channel | HandoffRegions.BACK_PRESSURE, key);
            return key;
        }
        HandoffStats.PRESSURE_DROPPED.increment();
        return 0;
    }

    // The other queues: side tables, called at the public methods' entry and exit.

    /**
     * At the entry of a put: registers the element and stamps the put. Returns the token that
     * {@link #afterPut} needs ({@link QueueHandoff#NESTED} when there is nothing to do then).
     */
    public static long beforePut(Object queue, Object element) {
        if (element == null) {
            return QueueHandoff.NESTED;
        }
        QueueHandoff q = of(queue);
        if (!q.recorded) {
            return QueueHandoff.NESTED;
        }
        if (q.resyncDue(element) && queue instanceof Collection<?> c) {
            q.resync(c); // before the element is registered, which a snapshot without it would purge
        }
        long token = q.put(element);
        if (token > 0) {
            Probes.handoffPut(q.region(), q.channel, token);
        }
        return token;
    }

    /** At the end of a put that {@link #beforePut} registered: {@code inserted} is whether the element is in the queue. */
    public static void afterPut(Object queue, Object element, long token, boolean inserted) {
        if (token != QueueHandoff.NESTED && !inserted) {
            of(queue).putFailed(element);
        }
    }

    /**
     * At the end of a rendezvous put ({@code SynchronousQueue.put}, {@code transfer}, their timed
     * forms) that {@link #beforePut} gave {@code token}: a taker has the element if it returned
     * {@code inserted}; its take, once recorded, is what the put waited for.
     */
    public static void afterRendezvous(Object queue, Object element, long token, boolean inserted) {
        afterPut(queue, element, token, inserted);
        if (token <= 0 || !inserted) {
            return;
        }
        QueueHandoff q = of(queue);
        if (awaitTaken(q, token)) {
            Probes.handoffTake(q.region(), q.channel | HandoffRegions.BACK_PRESSURE, token);
        } else {
            HandoffStats.PRESSURE_DROPPED.increment();
        }
    }

    /**
     * Whether the take of {@code key} is recorded, giving its thread a few chances to finish doing
     * so: woken by that take, the put's thread often preempts the taker on its core before the
     * taker's end has run. A put that waited anyway waits these few yields more, no longer.
     */
    private static boolean awaitTaken(QueueHandoff taken, long key) {
        for (int i = 0; i < PRESSURE_YIELDS; i++) {
            if (taken.wasTaken(key)) {
                return true;
            }
            Thread.yield();
        }
        return taken.wasTaken(key);
    }

    /** At the entry of a take or poll: the token {@link #afterTake} needs (the queue's resync epoch). */
    public static int beforeTake(Object queue) {
        return of(queue).takeEpoch();
    }

    /**
     * After a take or poll that {@link #beforeTake} saw begin returned {@code element} (null: nothing
     * taken). Returns the key recorded, or 0.
     */
    public static long afterTake(Object queue, Object element, int token) {
        if (element == null || token == QueueHandoff.NOT_RECORDED) {
            return 0;
        }
        QueueHandoff q = of(queue);
        long seq = q.take(element, token);
        if (seq > 0) {
            Probes.handoffTake(q.region(), q.channel, seq);
            q.took(seq);
        }
        return seq;
    }

    /**
     * At the entry of a removal that is not a take of the head (bulk, by reference, by an
     * iterator, from a deque's tail); {@link #afterOtherRemoval} must follow, thrown or not.
     */
    public static void beforeOtherRemoval() {
        OTHER_REMOVALS_BEGUN.incrementAndGet();
    }

    public static void afterOtherRemoval() {
        OTHER_REMOVALS_ENDED.incrementAndGet();
    }

    /** After elements left a side-table queue in bulk ({@code drainTo}, {@code clear}, {@code removeIf}, …): resync now. */
    public static void afterBulkRemoval(Object queue) {
        QueueHandoff q = QUEUES.get(queue);
        if (q != null && q.recorded && queue instanceof Collection<?> c) {
            q.resync(c);
        }
    }

    /** After {@code remove(Object)} removed an element of a side-table queue: resync once such removals add up. */
    public static void afterRemoval(Object queue, boolean removed) {
        QueueHandoff q = removed ? QUEUES.get(queue) : null;
        if (q != null && q.recorded && q.departed() && queue instanceof Collection<?> c) {
            q.resync(c);
        }
    }
}
