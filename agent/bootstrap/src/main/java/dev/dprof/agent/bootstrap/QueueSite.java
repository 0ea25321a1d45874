package dev.dprof.agent.bootstrap;

/**
 * A queue's site and the region named after it, registered when the queue is first used
 * ({@link HandoffSites#region}): queues that are made and never used (a {@code SynchronousQueue}'s
 * internal transferer on JDK 25) name no region. Shared by both ways of keying a queue
 * ({@link QueueHandoff}, {@link FifoHandoff}).
 *
 * <h2>Implementation notes</h2>
 * One volatile read per handoff once registered; registration is rare and synchronized.
 */
final class QueueSite {
    private final String className;
    private final String where;
    private volatile int region = -1;

    QueueSite(String className, String where) {
        this.className = className;
        this.where = where;
    }

    int region() {
        int r = region;
        return r >= 0 ? r : register();
    }

    private synchronized int register() {
        if (region < 0) {
            region = HandoffSites.region("queue", className, where);
        }
        return region;
    }
}
