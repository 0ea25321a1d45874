package dev.dprof.agent.bootstrap;

import dev.dprof.format.HandoffRegions;

/**
 * What the advice woven into {@code java.lang.Thread} calls ({@code HandoffRegions.Kind.THREAD}):
 * {@code start} puts the new thread's id on channel {@code THREAD_START} (0) before the thread can
 * run, its first event being the take; a thread puts its own id on channel {@code THREAD_END} (1)
 * as it terminates ({@code Thread.exit}, called by the VM on the ending thread before
 * {@code join} can return), and a {@code join} that returns with the thread terminated takes it.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>The put is stamped only for a thread still {@code NEW}: a second {@code start} of a thread
 * throws and must not put its id again. Two threads racing to start the same thread may both
 * stamp; the key is then put twice and implies nothing.</li>
 * <li>Ids are {@code Thread.getId()}, the ids the rings name their threads by.</li>
 * <li>Virtual threads start and end through {@code VirtualThread}, which this does not weave.</li>
 * <li>Nothing is recorded of the agent's own threads ({@link AgentThreads}).</li>
 * </ul>
 */
public final class ThreadHandoffs {
    private ThreadHandoffs() {
    }

    @SuppressWarnings("deprecation") // getId: the id the rings use, equal to threadId()
    public static void beforeStart(Thread thread, int region) {
        if (thread.getState() == Thread.State.NEW && !AgentThreads.starting(thread)) {
            Probes.handoffPut(region, HandoffRegions.THREAD_START, thread.getId());
        }
    }

    @SuppressWarnings("deprecation")
    public static void atExit(int region) {
        Thread current = Thread.currentThread();
        if (!AgentThreads.isOwn(current)) {
            Probes.handoffPut(region, HandoffRegions.THREAD_END, current.getId());
        }
    }

    @SuppressWarnings("deprecation")
    public static void afterJoin(Thread thread, int region) {
        if (thread.getState() == Thread.State.TERMINATED && !AgentThreads.isOwn(thread)) {
            Probes.handoffTake(region, HandoffRegions.THREAD_END, thread.getId());
        }
    }
}
