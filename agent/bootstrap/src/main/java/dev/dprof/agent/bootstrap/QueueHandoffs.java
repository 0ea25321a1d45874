package dev.dprof.agent.bootstrap;

import java.util.Collection;
import java.util.function.Function;

/**
 * What the advice woven into the JDK's blocking queues calls ({@code HandoffRegions.Kind.QUEUE}):
 * a put is stamped ({@code HANDOFF_PUT}, channel = the queue's, key = the element's sequence
 * number) before the element is inserted, so before any taker can see it; the take that returns the
 * element stamps {@code HANDOFF_TAKE} with the same payload after it returned. Executors built on
 * these queues ({@code ThreadPoolExecutor}, {@code ScheduledThreadPoolExecutor}) get their
 * submit→run-start edges from them. {@link QueueHandoff} keeps the keys exact.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>A queue's state is found by identity in a lock-free weak map; it is made when the queue is
 * constructed ({@link #constructed}, which names its site) or, for a queue made before the agent,
 * when it is first used.</li>
 * <li>Two probe events per handoff (one put, one take); the side table's monitor is taken once at
 * the put's entry, once at its end and once at the take's end, and the probes run outside it, so
 * that a producer and a consumer hold it only for the table's bookkeeping; a take's entry reads the queue's
 * resync epoch (a volatile read).</li>
 * <li>Nothing here throws into the host: the advice suppresses and counts any failure.</li>
 * </ul>
 */
public final class QueueHandoffs {
    private static final WeakIdentityMap<QueueHandoff> QUEUES = new WeakIdentityMap<>();
    /** A queue first met in use: the application's, unless one of the agent's threads is first to use it. */
    private static final Function<Object, QueueHandoff> MET_LATE = q -> make(q,
            AgentThreads.isOwn(Thread.currentThread()) ? null : HandoffSites.BEFORE_AGENT);

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
        QueueHandoff q = new QueueHandoff(HandoffSites.newChannel(), HandoffSites.className(queue), site, true);
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
        if (q.resyncDue() && queue instanceof Collection<?> c) {
            q.resync(c);
        }
        long token = q.put(element, Thread.currentThread());
        if (token > 0) {
            Probes.handoffPut(q.region, q.channel, token);
        }
        return token;
    }

    /** At the end of a put that {@link #beforePut} registered: {@code inserted} is whether the element is in the queue. */
    public static void afterPut(Object queue, Object element, long token, boolean inserted) {
        if (token != QueueHandoff.NESTED) {
            of(queue).putDone(element, inserted);
        }
    }

    /** At the entry of a take or poll: the token {@link #afterTake} needs (the queue's resync epoch). */
    public static int beforeTake(Object queue) {
        return of(queue).takeEpoch();
    }

    /** After a take or poll that {@link #beforeTake} saw begin returned {@code element} (null: nothing taken). */
    public static void afterTake(Object queue, Object element, int token) {
        if (element != null && token != QueueHandoff.NOT_RECORDED) {
            QueueHandoff q = of(queue);
            long seq = q.take(element, token);
            if (seq > 0) {
                Probes.handoffTake(q.region, q.channel, seq);
            }
        }
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
