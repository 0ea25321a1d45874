package dev.dprof.agent.bootstrap;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the application's calls of {@code Object.wait}, {@code notify} and {@code notifyAll} are
 * rewritten to call ({@code HandoffRegions.Kind.MONITOR}): a notification of a monitor, handed to
 * the return of a {@code wait} on it.
 *
 * <p>The edge: a {@code wait} that returns after at least one notification of its monitor since it
 * began takes the <em>latest</em> of them. Both ends run while their thread holds the monitor
 * (a notifier must hold it, and a waiter returns only once it holds it again), so the latest
 * notification released the monitor before the waiter could take it back: whichever notification
 * woke the waiter, it could not return before that one — an edge of the execution, never a guess.
 * A {@code wait} that returns with no notification since it began (its timeout, a spurious
 * wake-up, an interrupt) records nothing.
 *
 * <p>Bookkeeping is per monitor with a waiter: a monitor enters the table when its first waiter
 * begins and leaves it when its last waiter returns, so notifications of monitors nobody waits on
 * cost one volatile read and record nothing. The entry counts the monitor's notifications
 * (its generation) and keeps the key of the latest; a waiter compares the generation at its return
 * with the one at its start. A generation that wraps around exactly during one wait makes that
 * wait look un-notified: an edge lost, never a wrong one.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>The calls are rewritten at their call sites ({@code MonitorCallSites} in the agent): on
 * JDK 17 {@code wait(long)}, {@code notify} and {@code notifyAll} are native and cannot be woven.</li>
 * <li>The real call runs first (notify) or in the middle (wait), unchanged, so its exceptions
 * ({@code IllegalMonitorStateException}, {@code InterruptedException}, …) reach the caller as
 * without the agent; a failure of the bookkeeping is counted ({@link Probes#adviceFailed}) and
 * never thrown.</li>
 * <li>A waiter registers only while it holds the monitor ({@link Thread#holdsLock}): a call that
 * will throw for want of it never takes part.</li>
 * <li>Events are stamped under the stripe's monitor, and the put while the notifier still holds
 * the application's monitor, so the put is in its ring before the waiter can look.</li>
 * <li>Allocation-free in steady state ({@link IdentitySlots}, {@link KeyStripes}).</li>
 * </ul>
 */
public final class MonitorHandoffs {
    private static final KeyStripes MONITORS = new KeyStripes(4, Integer.MAX_VALUE);
    private static final long CHANNEL = HandoffSites.newChannel();
    /** Threads inside a registered wait, process-wide. */
    private static final AtomicInteger WAITING = new AtomicInteger();
    /** A wait that did not register (its thread does not hold the monitor, or the bookkeeping failed). */
    static final long NOT_REGISTERED = Long.MIN_VALUE;

    private MonitorHandoffs() {
    }

    /** {@code monitor.wait()}, recorded. */
    public static void waitOn(Object monitor, int site) throws InterruptedException {
        long generation = began(monitor);
        try {
            monitor.wait();
        } finally {
            ended(monitor, generation, site);
        }
    }

    /** {@code monitor.wait(timeoutMillis)}, recorded. */
    public static void waitOn(Object monitor, long timeoutMillis, int site) throws InterruptedException {
        long generation = began(monitor);
        try {
            monitor.wait(timeoutMillis);
        } finally {
            ended(monitor, generation, site);
        }
    }

    /** {@code monitor.wait(timeoutMillis, nanos)}, recorded. */
    public static void waitOn(Object monitor, long timeoutMillis, int nanos, int site) throws InterruptedException {
        long generation = began(monitor);
        try {
            monitor.wait(timeoutMillis, nanos);
        } finally {
            ended(monitor, generation, site);
        }
    }

    /** {@code monitor.notify()}, recorded. */
    public static void notifyOne(Object monitor, int site) {
        monitor.notify();
        if (WAITING.get() != 0) {
            notified(monitor, site);
        }
    }

    /** {@code monitor.notifyAll()}, recorded. */
    public static void notifyEvery(Object monitor, int site) {
        monitor.notifyAll();
        if (WAITING.get() != 0) {
            notified(monitor, site);
        }
    }

    private static long began(Object monitor) {
        try {
            if (monitor == null || !Thread.holdsLock(monitor) || AgentThreads.isOwn(Thread.currentThread())) {
                return NOT_REGISTERED;
            }
            long generation = register(monitor);
            WAITING.incrementAndGet();
            return generation;
        } catch (Throwable t) {
            Probes.adviceFailed(t);
            return NOT_REGISTERED;
        }
    }

    private static void ended(Object monitor, long generation, int site) {
        if (generation == NOT_REGISTERED) {
            return;
        }
        try {
            WAITING.decrementAndGet();
            unregister(monitor, generation, site);
        } catch (Throwable t) {
            Probes.adviceFailed(t);
        }
    }

    private static void notified(Object monitor, int site) {
        try {
            stampNotification(monitor, site);
        } catch (Throwable t) {
            Probes.adviceFailed(t);
        }
    }

    /** Stamps a notification of {@code monitor} if anyone waits on it; returns its key, or 0. */
    static long stampNotification(Object monitor, int site) {
        KeyStripes.Stripe s = MONITORS.of(monitor);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.size() == 0 ? -1 : t.find(monitor);
            if (i < 0) {
                return 0;
            }
            long key = s.nextKey(MONITORS.bits);
            t.seqs[i] = key;
            t.epochs[i]++;
            Probes.handoffPut(site, CHANNEL, key);
            return key;
        }
    }

    /** Registers a waiter of {@code monitor}; returns the monitor's generation now. */
    static long register(Object monitor) {
        KeyStripes.Stripe s = MONITORS.of(monitor);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(monitor);
            if (i < 0) {
                i = t.add(monitor);
            }
            t.counts[i]++;
            return t.epochs[i];
        }
    }

    /**
     * Unregisters a waiter that {@link #register} returned {@code generation} to, stamping the take
     * of the latest notification if there was one since; returns its key, or 0.
     */
    static long unregister(Object monitor, long generation, int site) {
        KeyStripes.Stripe s = MONITORS.of(monitor);
        synchronized (s) {
            IdentitySlots t = s.slots;
            int i = t.find(monitor);
            if (i < 0) {
                return 0;
            }
            long key = t.epochs[i] != generation ? t.seqs[i] : 0;
            if (key != 0) {
                Probes.handoffTake(site, CHANNEL, key);
            }
            if (--t.counts[i] <= 0) {
                t.removeAt(i);
            }
            return key;
        }
    }
}
