package dev.dprof.agent.bootstrap;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The agent's own threads — its drainer, the threads its libraries start (Chronicle's cleaners
 * and disk checkers), its shutdown hooks — so that the handoff probes record nothing of them: their
 * starts, ends and joins, and the queues they are first to use, are not the application's. Without
 * this, a profile showed Chronicle's threads as the application's, and an application's
 * {@code System.exit} joined the agent's hooks, whose ends the agent's last drain could not see:
 * a take without a put, reported as an unexplained wait.
 *
 * <p>Which threads are the agent's: those its start left alive or registered as shutdown hooks
 * ({@link #own}, from the agent's start, which compares before and after), and every thread one of
 * them starts.
 *
 * <h2>Implementation notes</h2>
 * A weak map keyed by the threads themselves ({@code Thread} keeps identity equality), locked:
 * it is read only where a thread starts, ends or is joined, and where a queue is first met, never
 * per event.
 */
public final class AgentThreads {
    private static final Map<Thread, Boolean> OWN = Collections.synchronizedMap(new WeakHashMap<>());
    /** Their ids, for the drainer, which knows a ring by its thread's id; few, and never reused. */
    private static volatile long[] ownIds = new long[0];

    private AgentThreads() {
    }

    /** Counts {@code threads} as the agent's. */
    public static void own(Collection<Thread> threads) {
        for (Thread t : threads) {
            remember(t);
        }
    }

    @SuppressWarnings("deprecation") // getId: the id the rings name their threads by
    private static synchronized void remember(Thread t) {
        if (OWN.put(t, Boolean.TRUE) == null) {
            long[] ids = java.util.Arrays.copyOf(ownIds, ownIds.length + 1);
            ids[ids.length - 1] = t.getId();
            ownIds = ids;
        }
    }

    /**
     * Whether the thread with this id is the agent's: the drainer leaves its events out of the
     * queue, so that a YAML region on a JDK method the agent also calls (a file's {@code force},
     * which the calibration's files use) counts only the application's calls.
     */
    public static boolean isOwnId(long threadId) {
        for (long id : ownIds) {
            if (id == threadId) {
                return true;
            }
        }
        return false;
    }

    /** The ids of the agent's threads so far (a copy), for a drainer in another process. */
    public static long[] ownIds() {
        return ownIds.clone();
    }

    /** Whether {@code thread} is the agent's. */
    public static boolean isOwn(Thread thread) {
        return OWN.containsKey(thread);
    }

    /**
     * Whether {@code thread}, about to be started by the calling thread, is the agent's; it is when
     * the agent starts it, and is then remembered as such.
     */
    static boolean starting(Thread thread) {
        if (isOwn(thread)) {
            return true;
        }
        if (isOwn(Thread.currentThread())) {
            remember(thread);
            return true;
        }
        return false;
    }
}
