package dev.dprof.agent.bootstrap;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the advice woven into {@code CompletableFuture} and {@code FutureTask} calls
 * ({@code HandoffRegions.Kind.FUTURE}): a future's completion, handed to the {@code get} or
 * {@code join} that waited for it.
 *
 * <p>A waiter that finds the future not done registers it (one key per future, shared by all its
 * waiters, dropped when the last one leaves). A completer that finds a waiter registered stamps
 * {@code HANDOFF_PUT} before publishing the result; once its publication succeeded it marks the
 * entry published. A waiter stamps {@code HANDOFF_TAKE} after returning, and only if the entry is
 * published by the one thread that stamped its put — so a put stamped by a completer that lost the
 * race to another never pairs with a take: races lose edges, never make wrong ones.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>A completion with nobody waiting costs one volatile read ({@link #WAITING}), so futures that
 * are never waited for (most of a chain's stages) pay nothing else.</li>
 * <li>Events are stamped under the stripe's monitor, so a put that a waiter's take could see is
 * in the ring before the take looks.</li>
 * </ul>
 */
public final class FutureHandoffs {
    private static final KeyStripes FUTURES = new KeyStripes(4, Integer.MAX_VALUE);
    private static final long CHANNEL = HandoffSites.newChannel();
    /** Threads inside a waiting get/join of a registered future, process-wide. */
    private static final AtomicInteger WAITING = new AtomicInteger();

    private FutureHandoffs() {
    }

    /** At the entry of a get or join on a future that is not done: registers the waiter. */
    public static void beforeWait(Object future) {
        KeyStripes.Stripe s = FUTURES.of(future);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(future);
            if (i < 0) {
                i = t.add(future);
                t.seqs[i] = s.nextKey(FUTURES.bits);
            }
            t.counts[i]++;
        }
        WAITING.incrementAndGet();
    }

    /** At the end of a get or join that {@link #beforeWait} registered, however it ended. */
    public static void afterWait(Object future, int region) {
        KeyStripes.Stripe s = FUTURES.of(future);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(future);
            if (i >= 0) {
                if ((t.flags[i] & IdentitySlots.PUBLISHED) != 0) {
                    if (t.pending[i] == 1) {
                        Probes.handoffTake(region, CHANNEL, t.seqs[i]);
                    } else if ((t.flags[i] & IdentitySlots.AMBIGUOUS) == 0) {
                        t.flags[i] |= IdentitySlots.AMBIGUOUS;
                        HandoffStats.FUTURE_RACES.increment();
                    }
                }
                if (--t.counts[i] <= 0) {
                    t.removeAt(i);
                }
            }
        }
        WAITING.decrementAndGet();
    }

    /**
     * Before a completer publishes the result of a future that is not done: stamps the put if a
     * waiter is registered. Returns whether it did, for {@link #published}.
     */
    public static boolean beforeComplete(Object future, int region) {
        if (WAITING.get() == 0) {
            return false;
        }
        KeyStripes.Stripe s = FUTURES.of(future);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.size() == 0 ? -1 : t.find(future);
            if (i < 0) {
                return false;
            }
            t.pending[i]++;
            t.owners[i] = Thread.currentThread();
            Probes.handoffPut(region, CHANNEL, t.seqs[i]);
            return true;
        }
    }

    /** The calling thread, which stamped the put ({@link #beforeComplete}), has published the result. */
    public static void published(Object future) {
        if (WAITING.get() == 0) {
            return;
        }
        KeyStripes.Stripe s = FUTURES.of(future);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(future);
            if (i >= 0 && t.owners[i] == Thread.currentThread()) {
                t.flags[i] |= IdentitySlots.PUBLISHED;
            }
        }
    }
}
