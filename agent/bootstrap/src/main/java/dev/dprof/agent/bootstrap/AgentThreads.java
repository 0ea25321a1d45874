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

    private AgentThreads() {
    }

    /** Counts {@code threads} as the agent's. */
    public static void own(Collection<Thread> threads) {
        for (Thread t : threads) {
            OWN.put(t, Boolean.TRUE);
        }
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
            OWN.put(thread, Boolean.TRUE);
            return true;
        }
        return false;
    }
}
