package dev.dprof.agent.bootstrap;

import dev.dprof.format.HandoffRegions;
import java.util.Collection;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TransferQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * What the advice woven into the JDK's blocking queues calls ({@code HandoffRegions.Kind.QUEUE}):
 * a put is stamped ({@code HANDOFF_PUT}, channel = the queue's, key = the element's sequence
 * number) before the element is inserted, so before any taker can see it; the take that returns the
 * element stamps {@code HANDOFF_TAKE} with the same payload after it returned. Executors built on
 * these queues ({@code ThreadPoolExecutor}, {@code ScheduledThreadPoolExecutor}) get their
 * submit→run-start edges from them. {@link QueueHandoff} keeps the keys exact.
 *
 * <p><b>Back-pressure</b> (docs/FORMAT.md, "Handoffs"): a blocking put ({@code put},
 * {@code offer} with a timeout, their deque forms) that finds its bounded queue
 * ({@code ArrayBlockingQueue}, {@code LinkedBlockingQueue}, {@code LinkedBlockingDeque}) full
 * cannot insert before some element leaves. Under the queue's own lock, so that nothing can leave
 * meanwhile, it confirms the queue is full and reads the key {@code k} of the element at its head
 * ({@link #pressure}). The first element to leave after that moment is that head — takes remove
 * the head, and no insert is possible while the queue is full — unless something else removed an
 * element: any other removal ({@code remove(Object)}, {@code drainTo}, {@code clear},
 * {@code removeIf}…, an iterator's {@code remove}, a deque's take from its tail) is bracketed by
 * two process-wide counters ({@link #beforeOtherRemoval}), and a put during which one began or
 * was running records nothing. So the take of {@code k} happened after the put found the queue
 * full and before it inserted. Once the put returned, it records {@code HANDOFF_TAKE} with channel
 * {@code channel | BACK_PRESSURE} and key {@code k} if that take's event is already recorded
 * ({@link QueueHandoff#wasTaken}), so it comes first; otherwise nothing (counted,
 * {@link HandoffStats#PRESSURE_DROPPED}).
 *
 * <p>A rendezvous — {@code SynchronousQueue.put} and timed {@code offer},
 * {@code LinkedTransferQueue.transfer} and timed {@code tryTransfer} — returns only once a taker
 * has its element: it records the back-pressure take of its <em>own</em> key, under the same
 * condition that the take is recorded already. Untimed {@code offer}/{@code tryTransfer} never
 * wait and record none.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>A queue's state is found by identity in a lock-free weak map; it is made when the queue is
 * constructed ({@link #constructed}, which names its site) or, for a queue made before the agent,
 * when it is first used.</li>
 * <li>Two probe events per handoff (one put, one take); a put takes its element's stripe monitor
 * once, a take once (a failed insert once more), and the probes run outside them
 * ({@link QueueHandoff}); a take's entry reads the queue's resync epoch (a volatile read), its end
 * publishes its key with a release store when puts may wait for it.</li>
 * <li>Back-pressure costs a blocking put on a bounded queue a racy read of the queue's count (which
 * the advice passes in) when the queue is not full; only a put that is about to block takes the
 * queue's lock once more.</li>
 * <li>Nothing here throws into the host: the advice suppresses and counts any failure.</li>
 * </ul>
 */
public final class QueueHandoffs {
    private static final WeakIdentityMap<QueueHandoff> QUEUES = new WeakIdentityMap<>();
    /** A queue first met in use: the application's, unless one of the agent's threads is first to use it. */
    private static final Function<Object, QueueHandoff> MET_LATE = q -> make(q,
            AgentThreads.isOwn(Thread.currentThread()) ? null : HandoffSites.BEFORE_AGENT);
    /** Removals other than a take of the head, begun and ended, in every queue of the process. */
    private static final AtomicLong OTHER_REMOVALS_BEGUN = new AtomicLong();
    private static final AtomicLong OTHER_REMOVALS_ENDED = new AtomicLong();
    /** How many times a put that waited yields for the take it waited for to be recorded. */
    static final int PRESSURE_YIELDS = 4;
    /** {@link #pressure}'s answer when the put records no back-pressure. */
    public static final long NO_PRESSURE = 0;

    private QueueHandoffs() {
    }

    /** At the end of a queue's constructor: names its site (nested constructors find it made). */
    public static void constructed(Object queue) {
        if (QUEUES.get(queue) == null) {
            String site = HandoffSites.constructionSite();
            QUEUES.computeIfAbsent(queue, q -> make(q, site));
        }
    }

    private static QueueHandoff make(Object queue, String site) {
        if (site == null) {
            return new QueueHandoff(0, null, null, false);
        }
        int capacity = 0;
        if (queue instanceof BlockingQueue<?> b && !(queue instanceof SynchronousQueue<?>)) {
            int remaining = b.remainingCapacity();
            capacity = remaining == Integer.MAX_VALUE ? 0 : remaining + b.size();
        }
        boolean rendezvous = queue instanceof SynchronousQueue<?> || queue instanceof TransferQueue<?>;
        QueueHandoff q = new QueueHandoff(HandoffSites.newChannel(), HandoffSites.className(queue), site, true,
                capacity, capacity > 0 || rendezvous);
        if (queue instanceof Collection<?> c) {
            // What the constructor's collection (or life before the agent) put in, unregistered.
            q.present(c.toArray());
        }
        return q;
    }

    private static QueueHandoff of(Object queue) {
        QueueHandoff q = QUEUES.get(queue);
        return q != null ? q : QUEUES.computeIfAbsent(queue, MET_LATE);
    }

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

    /**
     * At the end of a blocking put of a bounded queue: {@link #afterPut}, then {@link #afterPressure}
     * with what the entry saw. {@code returned} is the put's return value, or null for a void put.
     */
    public static void afterBlockingPut(Object queue, Object element, long token, Object returned, Throwable thrown,
                                        long pressure, long removals) {
        boolean inserted = thrown == null && !Boolean.FALSE.equals(returned);
        afterPut(queue, element, token, inserted);
        afterPressure(queue, pressure, removals, inserted);
    }

    /** At the end of a put that {@link #beforePut} registered: {@code inserted} is whether the element is in the queue. */
    public static void afterPut(Object queue, Object element, long token, boolean inserted) {
        if (token != QueueHandoff.NESTED && !inserted) {
            of(queue).putFailed(element);
        }
    }

    /**
     * At the entry of a blocking put on a bounded queue, after {@link #beforePut}: if the queue is
     * full, the key of its head, which the put waits for (else {@link #NO_PRESSURE}). {@code count}
     * is the queue's count as the advice read it without the lock (only a full queue goes on);
     * {@code lock} is the lock that every removal of the queue holds. {@code removals} is
     * {@link #otherRemovalsQuiet()} read just before.
     */
    public static long pressure(Object queue, int count, ReentrantLock lock, long removals) {
        QueueHandoff q = of(queue);
        if (!q.recorded || q.capacity == 0 || count < q.capacity || removals < 0 || lock == null
                || !(queue instanceof BlockingQueue<?> b)) {
            return NO_PRESSURE;
        }
        lock.lock();
        try {
            // Holding the lock every removal needs: nothing leaves until we let go, and nothing
            // can be inserted into a full queue, so the head is what leaves first afterwards.
            if (b.remainingCapacity() != 0) {
                return NO_PRESSURE;
            }
            Object head = b.peek();
            return head == null ? NO_PRESSURE : q.keyOf(head);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Other removals' count if none is running (read before {@link #pressure}), else -1: the
     * ended count first, so a removal that began before the begun count was read and is still
     * running makes them differ.
     */
    public static long otherRemovalsQuiet() {
        long ended = OTHER_REMOVALS_ENDED.get();
        long begun = OTHER_REMOVALS_BEGUN.get();
        return begun == ended ? begun : -1;
    }

    /**
     * At the end of a blocking put that {@link #pressure} found waiting for the take of {@code key}:
     * records the back-pressure take if the put inserted, no other removal began since
     * {@code removals}, and the take's own event is recorded. Returns the key recorded, or 0.
     */
    public static long afterPressure(Object queue, long key, long removals, boolean inserted) {
        if (key == NO_PRESSURE || !inserted) {
            return 0;
        }
        QueueHandoff q = of(queue);
        if (OTHER_REMOVALS_BEGUN.get() == removals && awaitTaken(q, key)) {
            Probes.handoffTake(q.region(), q.channel | HandoffRegions.BACK_PRESSURE, key);
            return key;
        }
        HandoffStats.PRESSURE_DROPPED.increment();
        return 0;
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
    private static boolean awaitTaken(QueueHandoff q, long key) {
        for (int i = 0; i < PRESSURE_YIELDS; i++) {
            if (q.wasTaken(key)) {
                return true;
            }
            Thread.yield();
        }
        return q.wasTaken(key);
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

    /** After elements left in bulk ({@code drainTo}, {@code clear}, {@code removeIf}, …): resync now. */
    public static void afterBulkRemoval(Object queue) {
        QueueHandoff q = QUEUES.get(queue);
        if (q != null && q.recorded && queue instanceof Collection<?> c) {
            q.resync(c);
        }
    }

    /** After {@code remove(Object)} removed an element: resync once such removals add up. */
    public static void afterRemoval(Object queue, boolean removed) {
        QueueHandoff q = removed ? QUEUES.get(queue) : null;
        if (q != null && q.recorded && q.departed() && queue instanceof Collection<?> c) {
            q.resync(c);
        }
    }
}
