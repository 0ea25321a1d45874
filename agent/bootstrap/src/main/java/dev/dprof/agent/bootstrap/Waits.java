package dev.dprof.agent.bootstrap;

import dev.dprof.format.HandoffRegions;

/**
 * What the advice woven into {@code java.util.concurrent.locks.LockSupport} calls
 * ({@code HandoffRegions.Kind.WAIT}): a thread that returns from a park of at least
 * {@link #THRESHOLD_NANOS} that its timeout did not end records one {@code HANDOFF_TAKE} on channel
 * {@code HandoffRegions.WAITED}, keyed by the wait's length in nanoseconds, in the region of the
 * place it waited: the first frame outside the JDK and the agent
 * ({@code wait: park in org.example.Pipeline.awaitItem:57}, {@link HandoffSites#waitSite}).
 *
 * <p>Every wait of {@code java.util.concurrent} parks there: a lock's or a condition's, a latch's,
 * a semaphore's, a queue's take, a future's {@code get}, and on JDK 21 and later a virtual thread's
 * park (through {@code JavaLangAccess.parkVirtualThread}, between the advice's two halves: it
 * unmounts and is mounted again, maybe on another carrier, and the event goes to its own stream
 * like its other events, {@link VirtualThreads}). Such an event says only that the thread was
 * woken by something: the consolidator reads from the thread's next event whether a recorded edge
 * explains it (a take, a receive, a barrier's exit) and names the waits that none explains in the
 * incomplete-picture note (docs/BOUNDS.md).
 *
 * <p>The threshold, 1 ms: a wait that short costs a path little even unexplained, and the
 * parks of a busy program are mostly far shorter (a lock handed over, a queue never empty for
 * long), so that almost every park pays only the two clock reads; a wait the note should name
 * (a stage waiting for a request, a commit for its disk write) lasts milliseconds. A park that ran
 * its whole timeout records nothing: no other thread ended it, so it is program-order time (a
 * sleep), which the causal model already treats right.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Below the threshold a park costs the advice's two {@code System.nanoTime()} reads (an
 * intrinsic, no JNI transition, in nanoseconds already; the probes' TSC would need a JNI call and a
 * conversion) and, for a timed park, one comparison; nothing is allocated.</li>
 * <li>Above it, finding the site walks the stack, rationed ({@link HandoffSites}); a wait beyond
 * the ration is recorded in one coarse region, found once. The walk allocates, nothing else does.</li>
 * <li>Nothing is recorded of the agent's own threads ({@link AgentThreads}), of waits whose first
 * frame outside the JDK is the agent's, nor of waits with no frame outside the JDK (an idle pool
 * worker, a JDK daemon): no region of the application could explain them.</li>
 * <li>The slow path holds no lock while it could park; a failure in it is counted
 * ({@link Probes#adviceFailed}), never thrown into the waiting thread.</li>
 * <li>Uses {@code HandoffRegions} constants only in constant expressions (inlined by javac).</li>
 * </ul>
 */
public final class Waits {
    /** The shortest wait recorded, in nanoseconds (see the class comment for why 1 ms). */
    public static final long THRESHOLD_NANOS = HandoffRegions.WAIT_THRESHOLD_NANOS;
    private static final long CHANNEL = HandoffRegions.WAITED;
    /** The region of the waits beyond the walks' ration, once registered; 0 before. */
    private static volatile int notWalked;

    private Waits() {
    }

    /**
     * Initializes what the slow path uses (its classes, the walk's lambda) on the agent's thread,
     * before {@code LockSupport} is woven: done first inside a park, it could run class
     * initialization in the middle of the JDK's own locking.
     */
    public static void prepare() {
        HandoffSites.waitSite();
        AgentThreads.isOwn(Thread.currentThread());
        System.currentTimeMillis();
    }

    /** After {@code park()} or {@code park(blocker)}, which began at {@code startNanos}: no timeout. */
    public static void afterPark(long startNanos) {
        waited(System.nanoTime() - startNanos, false);
    }

    /** After {@code parkNanos}: recorded unless it lasted its whole timeout. */
    public static void afterParkNanos(long startNanos, long timeoutNanos) {
        long waited = System.nanoTime() - startNanos;
        waited(waited, waited >= timeoutNanos);
    }

    /** After {@code parkUntil}: recorded unless its deadline (epoch milliseconds) has passed. */
    public static void afterParkUntil(long startNanos, long deadlineMillis) {
        long waited = System.nanoTime() - startNanos;
        if (waited >= THRESHOLD_NANOS) {
            waited(waited, System.currentTimeMillis() >= deadlineMillis);
        }
    }

    /** A park that lasted {@code waitedNanos} returned, {@code timedOut} or woken: records it if it is long and was woken. */
    static void waited(long waitedNanos, boolean timedOut) {
        if (waitedNanos >= THRESHOLD_NANOS && !timedOut) {
            woke(waitedNanos);
        }
    }

    /** The calling thread was woken after waiting {@code waitedNanos}: records it where it waited. */
    private static void woke(long waitedNanos) {
        try {
            if (AgentThreads.isOwn(Thread.currentThread())) {
                return;
            }
            String where = HandoffSites.waitSite();
            int region;
            if (where == null || HandoffSites.JDK_ONLY.equals(where)) {
                return;
            } else if (HandoffSites.NOT_WALKED.equals(where)) {
                region = notWalked;
                if (region == 0) {
                    region = HandoffSites.waitRegion(where);
                    notWalked = region;
                }
            } else {
                region = HandoffSites.waitRegion(where);
            }
            Probes.handoffTake(region, CHANNEL, waitedNanos);
        } catch (Throwable t) {
            Probes.adviceFailed(t);
        }
    }
}
