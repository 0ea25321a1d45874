package dev.dprof.agent.bootstrap;

import java.util.concurrent.Future;

/**
 * What the advice woven into {@code ForkJoinPool} calls ({@code HandoffRegions.Kind.EXECUTOR}): the
 * push of a task onto a work queue stamps {@code HANDOFF_PUT} before the task is stored, and the
 * start of the task's run ({@code ForkJoinTask.doExec}, by a worker or a helping joiner) stamps
 * {@code HANDOFF_TAKE} with the same key. Covers {@code fork()}, {@code execute}, {@code submit},
 * the common pool and {@code CompletableFuture}'s async stages on a pool. Keys are per-task
 * sequence numbers found again by the task's reference, as for queues.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>A task pushed while already in flight (forked twice) makes its entry ambiguous: no take.</li>
 * <li>A task that never runs (cancelled, its pool shut down) leaves its entry; a stripe that has
 * doubled since its last purge drops the entries of tasks that are done, which can no longer run
 * (counted as departed). A task pushed into a pool that terminates without cancelling it stays
 * until the task itself is done.</li>
 * <li>Two probe events per task; one stripe monitor at the push, one at its end, one at the run.</li>
 * <li>The continuations of virtual threads, which their scheduler (a {@code ForkJoinPool}) runs at
 * every start, unpark and yield, are not handoffs ({@link VirtualThreads#isScheduler} says why):
 * a push onto that pool and a run on its carriers cost a comparison each, and neither touches the
 * stripes. Each continuation is a new task object, so tracking it would also cost its identity
 * hash (a call into the VM), and three stripe monitors, at every mount.</li>
 * </ul>
 */
public final class TaskHandoffs {
    private static final int FIRST_PURGE = 256;
    private static final KeyStripes TASKS = new KeyStripes(6, FIRST_PURGE);
    private static final long CHANNEL = HandoffSites.newChannel();
    private static final long NESTED = -1;

    private TaskHandoffs() {
    }

    /**
     * At the entry of a push onto a work queue of {@code pool} (null where the push does not say:
     * a {@code lazySubmit}, JDK 17's {@code lockedPush}) owned by the worker {@code owner} (null for
     * a submission queue): registers the task and stamps the put; returns the token for
     * {@link #afterPush}. A push onto the virtual-thread scheduler, or onto one of its carriers'
     * own queues, is a continuation and records nothing.
     */
    public static long beforePush(Object task, Object pool, Thread owner, int region) {
        if (task == null || VirtualThreads.isScheduler(pool) || VirtualThreads.isCarrier(owner)) {
            return NESTED;
        }
        Thread current = Thread.currentThread();
        KeyStripes.Stripe s = TASKS.of(task);
        long key;
        synchronized (s) {
            IdentitySlots t = s.slots;
            if (t.size() >= s.purgeAt) {
                purgeDone(s);
            }
            int i = t.find(task);
            if (i < 0) {
                i = t.add(task);
                key = s.nextKey(TASKS.bits);
                t.seqs[i] = key;
                t.counts[i] = 1;
                t.pending[i] = 1;
                t.owners[i] = current;
            } else if (t.pending[i] > 0 && t.owners[i] == current) {
                return NESTED;
            } else {
                if ((t.flags[i] & IdentitySlots.AMBIGUOUS) == 0) {
                    t.flags[i] |= IdentitySlots.AMBIGUOUS;
                    HandoffStats.AMBIGUOUS.increment();
                }
                HandoffStats.AMBIGUOUS.increment();
                t.counts[i]++;
                t.pending[i]++;
                t.owners[i] = current;
                key = 0;
            }
        }
        if (key > 0) {
            Probes.handoffPut(region, CHANNEL, key);
        }
        return key;
    }

    /** At the end of a push {@link #beforePush} registered; {@code pushed} false when it threw. */
    public static void afterPush(Object task, long token, boolean pushed) {
        if (token == NESTED) {
            return;
        }
        KeyStripes.Stripe s = TASKS.of(task);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(task);
            if (i < 0) {
                return;
            }
            if (t.pending[i] > 0 && --t.pending[i] == 0) {
                t.owners[i] = null;
            }
            if (!pushed && --t.counts[i] <= 0) {
                t.removeAt(i);
            }
        }
    }

    /** At the start of {@code doExec}: {@code runs} is whether the task will run (not done yet). */
    public static void beforeExec(Object task, boolean runs, int region) {
        if (VirtualThreads.isCarrier(Thread.currentThread())) {
            return; // a virtual thread's continuation, never registered (beforePush)
        }
        KeyStripes.Stripe s = TASKS.of(task);
        long key;
        synchronized (s) {
            IdentitySlots t = s.slots;
            if (t.size() == 0) {
                return;
            }
            int i = t.find(task);
            if (i < 0) {
                return; // invoked without a push, or pushed before the agent
            }
            key = (t.flags[i] & IdentitySlots.AMBIGUOUS) == 0 ? t.seqs[i] : 0;
            if (--t.counts[i] <= 0) {
                t.removeAt(i);
            }
        }
        if (key > 0 && runs) {
            Probes.handoffTake(region, CHANNEL, key);
        }
    }

    /** Drops the entries of done tasks, which no run can take any more. Under the stripe's monitor. */
    private static void purgeDone(KeyStripes.Stripe s) {
        IdentitySlots t = s.slots;
        Object[] done = new Object[t.size()];
        int n = 0;
        for (int i = 0; i < t.capacity(); i++) {
            if (t.keys[i] instanceof Future<?> f && t.pending[i] == 0 && f.isDone()) {
                done[n++] = f;
            }
        }
        for (int j = 0; j < n; j++) {
            int i = t.find(done[j]);
            HandoffStats.DEPARTED.add(t.counts[i]);
            t.removeAt(i);
        }
        t.shrinkIfSparse();
        s.purgeAt = Math.max(FIRST_PURGE, 2 * t.size());
    }
}
