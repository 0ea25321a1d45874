package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;
import dev.dprof.format.HandoffRegions;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.ObjLongConsumer;

/**
 * Virtual threads (JDK 21 and later) as threads of their own. A virtual thread's probes record on
 * the ring of the carrier it runs on (the rings are per OS thread), so the advice woven into
 * {@code java.lang.VirtualThread} marks on that ring where each virtual thread begins and ends
 * running there: {@link #mounted} right after a mount, {@link #unmounting} right before the
 * unmount (docs/FORMAT.md, kinds 17 and 18). Readers give the events between the two to the virtual
 * thread's own stream, so a region during which it parked is one interval of one thread. Its
 * code's start and end are {@link #running} and {@link #ended}; its name goes to the queue from
 * {@link #started} through {@link #drainStarted}.
 *
 * <p>On a JDK without virtual threads (17), or when the agent could not open
 * {@code java.lang} and {@code jdk.internal.misc} to this class, {@link #SUPPORTED} is false,
 * nothing is woven, and {@link #currentCarrier} and {@link #carrierLocal} are the plain
 * {@code Thread.currentThread()} and {@code ThreadLocal}.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Java 17 source: the JDK 21 members are reached by method handles found once in the static
 * initializer ({@code Thread.currentCarrierThread()}, package-private, needs {@code java.lang}
 * open to this module; {@code jdk.internal.misc.CarrierThreadLocal} needs that package exported),
 * which {@code JdkOpener} arranges before this class initializes. The virtual-thread scheduler is
 * read from the first started thread's {@code scheduler} field, so finding it never initializes
 * {@code VirtualThread} (and never creates the scheduler) in a program without virtual threads.</li>
 * <li>The mount and unmount probes are one {@link Rings#record(int, long)} each: no allocation,
 * no lock. Their header is a constant, their payload the id the advice read from the thread.</li>
 * <li>{@link #started} allocates one small entry per virtual thread (its id and the name it
 * already has), on the starting thread, and the drainer takes it within one pass: nothing stays
 * behind per virtual thread, parked or not.</li>
 * </ul>
 */
public final class VirtualThreads {
    /** Whether virtual threads exist here and the agent can tell carriers from them. */
    public static final boolean SUPPORTED;
    private static final MethodHandle CURRENT_CARRIER;
    private static final MethodHandle NEW_CARRIER_LOCAL;
    /** {@code VirtualThread.scheduler}, read at a start until {@link #scheduler} is known. */
    private static final MethodHandle SCHEDULER_OF;
    private static final String UNSUPPORTED;

    private static final int MOUNT = EventCodes.VT_MOUNT;
    private static final int UNMOUNT = EventCodes.VT_UNMOUNT;
    private static final int START = EventCodes.THREAD_START;
    private static final int END = EventCodes.THREAD_END;

    /** Virtual threads started since the drainer's last pass, to be named in the queue. */
    private static final ConcurrentLinkedQueue<Started> STARTED = new ConcurrentLinkedQueue<>();
    /** The region of the thread handoffs ({@code Thread.start} and {@code join}), or -1 while they are off. */
    private static volatile int threadHandoffs = -1;
    /**
     * The pool that mounts virtual threads (the JDK's default scheduler), learnt at the first start
     * (before which no continuation can be scheduled); null until then and without virtual threads.
     */
    private static volatile Object scheduler;

    static {
        MethodHandle carrier = null;
        MethodHandle carrierLocal = null;
        MethodHandle schedulerOf = null;
        String unsupported = null;
        try {
            MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
            MethodHandles.Lookup lang = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup());
            carrier = lang.findStatic(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class));
            Class<?> type = Class.forName("jdk.internal.misc.CarrierThreadLocal");
            // Our own lookup: the package is exported to this module only, not to everyone.
            carrierLocal = MethodHandles.lookup().findConstructor(type, MethodType.methodType(void.class))
                    .asType(MethodType.methodType(ThreadLocal.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            // JDK 17 (no isVirtual), or the packages are not open to us: virtual threads stay
            // on their carriers' streams.
            carrier = null;
            carrierLocal = null;
            unsupported = e.toString();
        }
        if (unsupported == null) {
            try {
                // Not initialized here: the getter is used on instances, which exist only once it is.
                Class<?> vt = Class.forName("java.lang.VirtualThread", false, null);
                schedulerOf = MethodHandles.privateLookupIn(vt, MethodHandles.lookup())
                        .findGetter(vt, "scheduler", Executor.class)
                        .asType(MethodType.methodType(Object.class, Thread.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                // A JDK without that field: continuations stay executor handoffs, as any task.
                schedulerOf = null;
            }
        }
        UNSUPPORTED = unsupported;
        CURRENT_CARRIER = carrier;
        NEW_CARRIER_LOCAL = carrierLocal;
        SCHEDULER_OF = schedulerOf;
        SUPPORTED = carrier != null && carrierLocal != null;
    }

    private VirtualThreads() {
    }

    /** A started virtual thread, named by the drainer. */
    private record Started(long id, String name) {
    }

    /** Why {@link #SUPPORTED} is false, for the agent's log; null when it is true. */
    public static String unsupportedReason() {
        return UNSUPPORTED;
    }

    /**
     * The platform thread the caller runs on: its carrier when the caller is a virtual thread.
     * Rings belong to it, whichever thread recorded their first event.
     */
    public static Thread currentCarrier() {
        if (SUPPORTED) {
            try {
                return (Thread) CURRENT_CARRIER.invokeExact();
            } catch (Throwable e) {
                // cannot happen for a static no-argument method found at start; fall through
            }
        }
        return Thread.currentThread();
    }

    /**
     * A thread-local variable of the carrier rather than of the virtual thread running on it, so
     * that a virtual thread finds its carrier's ring; a plain one without virtual threads.
     */
    @SuppressWarnings("unchecked")
    public static <T> ThreadLocal<T> carrierLocal() {
        if (SUPPORTED) {
            try {
                return (ThreadLocal<T>) (ThreadLocal<?>) NEW_CARRIER_LOCAL.invokeExact();
            } catch (Throwable e) {
                // as above: fall back to a plain one
            }
        }
        return new ThreadLocal<>();
    }

    /**
     * Turns on the thread handoffs of virtual threads, recorded in {@code region}: a start puts the
     * new thread's id on {@code THREAD_START} (its first event, the mount, takes it), the end of its
     * code puts it on {@code THREAD_END} ({@code join}'s advice on {@code Thread} takes it), as for
     * platform threads, whose start and exit go through methods a virtual thread does not run.
     */
    public static void threadHandoffs(int region) {
        threadHandoffs = region;
    }

    /**
     * Advice of {@code VirtualThread.start(ThreadContainer)}, on the starting thread before the
     * virtual thread is scheduled: it is to be named in the queue, and its start is a handoff.
     */
    @SuppressWarnings("deprecation") // getId: the id the rings use
    public static void started(Thread vt) {
        if (scheduler == null) {
            learnScheduler(vt);
        }
        STARTED.add(new Started(vt.getId(), vt.getName()));
        int region = threadHandoffs;
        if (region >= 0) {
            Probes.handoffPut(region, HandoffRegions.THREAD_START, vt.getId());
        }
    }

    private static void learnScheduler(Thread vt) {
        if (SCHEDULER_OF == null) {
            return;
        }
        try {
            scheduler = (Object) SCHEDULER_OF.invokeExact(vt);
        } catch (Throwable e) {
            // cannot happen for a field found at start; its continuations then stay executor handoffs
        }
    }

    /**
     * Whether {@code pool} is the scheduler that mounts virtual threads. Its tasks are the virtual
     * threads' continuations, scheduled at every start, unpark and yield: their run starts on a
     * carrier before the mount, so a handoff to it would end in the carrier's own stream, never in
     * the virtual thread's ({@code VT_MOUNT} opens that), and explains no wait of it. What a
     * virtual thread waited for is recorded where it waited (its queue's take, its future's
     * {@code get}, its {@code join}), inside its own stream. {@link TaskHandoffs} skips these tasks.
     */
    static boolean isScheduler(Object pool) {
        return pool != null && pool == scheduler;
    }

    /** Whether {@code t} is a carrier: a worker of the scheduler that mounts virtual threads ({@link #isScheduler}). */
    static boolean isCarrier(Thread t) {
        return t instanceof ForkJoinWorkerThread w && isScheduler(w.getPool());
    }

    /** Advice at the end of {@code VirtualThread.mount()}: it now runs on this carrier. */
    public static void mounted(Thread vt) {
        Rings.record(MOUNT, vt.getId());
    }

    /** Advice at the start of {@code VirtualThread.unmount()}: it leaves this carrier. */
    public static void unmounting(Thread vt) {
        Rings.record(UNMOUNT, vt.getId());
    }

    /** Advice at the start of {@code VirtualThread.run(Runnable)}: its code starts, just after its first mount. */
    public static void running() {
        Rings.record(START);
    }

    /**
     * Advice at the end of {@code VirtualThread.run(Runnable)}: its code is done, its last unmount
     * follows, and only then is it terminated, so the end's handoff is stamped before a
     * {@code join} can return.
     */
    @SuppressWarnings("deprecation")
    public static void ended() {
        int region = threadHandoffs;
        if (region >= 0) {
            Probes.handoffPut(region, HandoffRegions.THREAD_END, Thread.currentThread().getId());
        }
        Rings.record(END);
    }

    /**
     * Hands every virtual thread started since the last call to {@code name} (its id, then its name,
     * or {@code virtual-<id>} when it has none). For the drainer only, before it writes the batches
     * that hold the threads' first mounts: a start happens before the mount the drainer then sees.
     */
    public static void drainStarted(ObjLongConsumer<String> name) {
        for (Started s = STARTED.poll(); s != null; s = STARTED.poll()) {
            name.accept(s.name.isEmpty() ? "virtual-" + s.id : s.name, s.id);
        }
    }
}
