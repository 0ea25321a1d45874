package dev.dprof.format;

import java.util.Locale;

/**
 * The handoffs the agent records between threads of one process without any configuration, and
 * how their events read ({@link EventKind#HANDOFF_PUT}, {@link EventKind#HANDOFF_TAKE}).
 *
 * <p>A handoff's region is its <em>site</em>: region kind {@value #REGION_KIND}, named
 * {@code "<kind>: <class> allocated in <where>"} ({@link #siteName}), e.g.
 * {@code queue: LinkedBlockingQueue allocated in RequestPipeline.<init>:42}. The same site in
 * several processes is one region, as every region name is.
 *
 * <p>Payload: {@code a} is the channel, {@code b} the key. Within one process, a take matches the
 * put with equal {@code (a, b)}; several takes may match one put (a future joined by several
 * threads). A key put twice in one process implies nothing and is counted. Keys are exact — a
 * per-object sequence number, a thread id — never a hash. Channels:
 * <ul>
 * <li>{@link #THREAD_START}: {@code Thread.start} puts the new thread's id; the take is that
 * thread's first event in the process (no event of its own is recorded for it);</li>
 * <li>{@link #THREAD_END}: a thread puts its own id as it ends; {@code join} takes it;</li>
 * <li>{@link #WAITED}: a take only, never matched: a thread returned from a long wait in
 * {@code LockSupport.park} that its timeout did not end (key: the wait's length in nanoseconds);
 * its region is where it waited ({@link #waitSiteName}). Whether a recorded edge explains the wait
 * is read from the thread's next event ({@link Kind#WAIT});</li>
 * <li>from {@link #FIRST_OBJECT} on: one channel per queue, executor or future table of the process,
 * and one for all its monitors, with a sequence number per channel as key;</li>
 * <li>with {@link #CUSTOM_CHANNEL} set: a handoff the YAML picks ({@code kind: handoff}), its configured
 * channel's value in the bits below;</li>
 * <li>a take whose channel has {@link #BACK_PRESSURE} set is a put that blocked on a full queue:
 * it waited for the take of that queue ({@code channel & ~BACK_PRESSURE}) with its key {@code b},
 * which freed the space; it matches that take, not a put.</li>
 * </ul>
 */
public final class HandoffRegions {
    /** The region kind of every handoff site. */
    public static final String REGION_KIND = "handoff";
    public static final long THREAD_START = 0;
    public static final long THREAD_END = 1;
    /** The channel of a thread's long wait in {@code LockSupport.park}; never matched ({@link Kind#WAIT}). */
    public static final long WAITED = 2;
    /** The shortest wait the agent records on {@link #WAITED}, in nanoseconds (why: the agent's {@code Waits}). */
    public static final long WAIT_THRESHOLD_NANOS = 1_000_000L;
    /** The first channel of a queue, executor or future table; lower ones are reserved. */
    public static final long FIRST_OBJECT = 16;
    /** Set in the channel of a handoff the YAML picks (bits 62 and 63 clear), so it never meets another channel. */
    public static final long CUSTOM_CHANNEL = 1L << 61;
    /** Set in a take's channel: a put that waited for a take of that channel (back-pressure). */
    public static final long BACK_PRESSURE = 1L << 62;

    /** What is handed over; the YAML's {@code handoffs:} list names them. */
    public enum Kind {
        /** A {@code BlockingQueue}'s element, from its put or offer to the take or poll that returns it. */
        QUEUE,
        /** A task, from its submission to the start of its run (pools that are not queues: fork/join). */
        EXECUTOR,
        /** A future's completion, to the return of {@code get} or {@code join} that waited for it. */
        FUTURE,
        /** {@code Thread.start} to the new thread's first event; a thread's end to the return of {@code join}. */
        THREAD,
        /** A monitor's {@code notify} or {@code notifyAll}, to the return of a {@code wait} on it that began before. */
        MONITOR,
        /**
         * Not a handoff but what shows one missing: a thread's wait of at least
         * {@link #WAIT_THRESHOLD_NANOS} in
         * {@code LockSupport.park} (locks, conditions, latches, every {@code java.util.concurrent}
         * wait), recorded as a take of {@link #WAITED} when it returns. A wait whose thread's next
         * event is a take, a receive or a barrier exit is explained by that event's edge; any other
         * is a wait with no recorded sender, which the analyses' incomplete note names by thread and
         * method (docs/BOUNDS.md).
         */
        WAIT,
        /** A handoff the YAML picks ({@code kind: handoff}, {@code side: put|take}). */
        CUSTOM;

        public String yamlName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private HandoffRegions() {
    }

    /** The region name of a handoff site. */
    public static String siteName(Kind kind, String className, String where) {
        return kind.yamlName() + ": " + className + " allocated in " + where;
    }

    /**
     * The region name of a call site of {@code Object.}{@code method} ({@code wait}, {@code notify},
     * {@code notifyAll}) at {@code where} ({@code Class.method:line}), e.g.
     * {@code monitor: notifyAll in CommitProcessor.wakeup:412}. The monitor's class is not in the
     * name: javac names {@code Object} as the owner of these calls, whatever the receiver.
     */
    public static String monitorSiteName(String method, String where) {
        return Kind.MONITOR.yamlName() + ": " + method + " in " + where;
    }

    /**
     * The region name of a site where threads waited in {@code LockSupport.park}: {@code where} is
     * {@code binary.class.Name.method:line} of the first frame outside the JDK and the agent, e.g.
     * {@code wait: park in org.example.Pipeline.awaitItem:57}. The class's binary name, not its
     * simple one as in the other sites: the name is all of the site that reaches the profile, and
     * the YAML the incomplete note suggests must name the class exactly.
     */
    public static String waitSiteName(String where) {
        return Kind.WAIT.yamlName() + ": park in " + where;
    }

    /** The region name of the thread handoffs of a process. */
    public static String threadsName() {
        return Kind.THREAD.yamlName() + ": Thread.start and Thread.join";
    }
}
