package dev.dprof.agent.bootstrap;

import dev.dprof.format.HandoffRegions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where handoff objects come from: each queue gets a channel of its own and a region named after
 * its <em>site</em>, the first frame outside the JDK when it was constructed
 * ({@code HandoffRegions.siteName}); the agent installs the region lookup ({@link #install}).
 *
 * <p>Finding a site walks the stack, a few microseconds. A library that makes a queue per request
 * must not pay that per request, so walks are rationed: at most {@value #WALKS_PER_SECOND} per
 * second in the process; a queue made beyond that gets the coarser site {@value #NOT_WALKED} of
 * its class. The sites of long waits ({@link Waits}) are found the same way, on a ration of their
 * own. Queues made by the agent's own code (its sink's libraries) are recognised by their
 * site and never recorded.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Runs only when a handoff object is made or first met, or a thread returns from a long wait,
 * never per handoff.</li>
 * <li>Uses {@code HandoffRegions} constants only in constant expressions (inlined by javac): the
 * format module is not on the bootstrap class path.</li>
 * </ul>
 */
public final class HandoffSites {
    /** Resolves a region's name and location to its id; installed by the agent. */
    public interface Registry {
        int region(String name, String location);
    }

    static final int WALKS_PER_SECOND = 200;
    static final String NOT_WALKED = "(sites not walked: more than " + WALKS_PER_SECOND + " new per second)";
    static final String BEFORE_AGENT = "(made before the agent started)";
    static final String JDK_ONLY = "(the JDK, no application frame)";
    /** Region id 0 (no region) when no registry is installed: events still carry channel and key. */
    private static volatile Registry registry;
    private static final AtomicLong CHANNELS = new AtomicLong(HandoffRegions.FIRST_OBJECT);
    private static final StackWalker WALKER = StackWalker.getInstance();
    /** Walks for the sites of handoff objects. */
    private static final Ration CONSTRUCTIONS = new Ration();
    /**
     * Walks for the sites of long waits ({@link Waits}): a ration of their own, so that a burst of
     * waits (an idle pool's workers waking) never leaves queues made then without their sites.
     */
    private static final Ration WAITS = new Ration();

    private HandoffSites() {
    }

    /** Installs the agent's region lookup, before anything is woven. */
    public static void install(Registry r) {
        registry = r;
    }

    /** A channel of its own for one queue, executor or future table of this process. */
    static long newChannel() {
        return CHANNELS.getAndIncrement();
    }

    /** The region of a site where threads wait ({@code HandoffRegions.waitSiteName}, spelled out likewise). */
    static int waitRegion(String where) {
        Registry r = registry;
        return r == null ? 0 : r.region("wait: park in " + where, where);
    }

    /** The region of a handoff object of kind {@code kind} ({@code queue}, …) and class {@code className}. */
    static int region(String kind, String className, String where) {
        Registry r = registry;
        // HandoffRegions.siteName, spelled out: the format module is not on the bootstrap class path.
        return r == null ? 0 : r.region(kind + ": " + className + " allocated in " + where, where);
    }

    /**
     * The site of the object being constructed now: {@code Class.method:line} of the first frame
     * outside {@code java.*}, {@code jdk.*}, {@code sun.*} and the probes, or {@code null} when that
     * frame is the agent's own (the object is the agent's and must not be recorded).
     */
    static String constructionSite() {
        return CONSTRUCTIONS.mayWalk() ? firstOutsideJdk(false) : NOT_WALKED;
    }

    /**
     * Where the calling thread waits now: {@code binary.ClassName.method:line} of the first frame
     * outside the JDK and the probes ({@code HandoffRegions.waitSiteName}), {@code null} when that
     * frame is the agent's, {@value #JDK_ONLY} when there is none, {@value #NOT_WALKED} beyond the
     * waits' own ration.
     */
    static String waitSite() {
        return WAITS.mayWalk() ? firstOutsideJdk(true) : NOT_WALKED;
    }

    /**
     * The site of a queue first met in use: its {@link #constructionSite} if it is being
     * constructed now (its constructor inserts through a method the probes watch, as
     * {@code LinkedBlockingQueue(Collection)} does), else {@link #BEFORE_AGENT}. The look at the
     * stack and the site's walk count as one walk of the constructions' ration.
     */
    static String siteMetLate(Object queue) {
        if (!CONSTRUCTIONS.mayWalk()) {
            return NOT_WALKED;
        }
        Class<?> type = queue.getClass();
        boolean constructing = WALKER.walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("<init>")
                && isOrExtends(type, f.getClassName())));
        return constructing ? firstOutsideJdk(false) : BEFORE_AGENT;
    }

    private static boolean isOrExtends(Class<?> type, String className) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(className)) {
                return true;
            }
        }
        return false;
    }

    /** The walk stops at the first frame outside the JDK: its cost is the depth down to it, not the stack's. */
    private static String firstOutsideJdk(boolean binaryName) {
        String site = WALKER.walk(frames -> frames.filter(f -> !isJdk(f.getClassName())).findFirst()
                .map(f -> isAgent(f.getClassName()) ? ""
                        : (binaryName ? f.getClassName() : simpleName(f.getClassName())) + "." + f.getMethodName()
                                + ":" + f.getLineNumber())
                .orElse(JDK_ONLY));
        return site.isEmpty() ? null : site;
    }

    /** At most {@value #WALKS_PER_SECOND} walks in each second. */
    private static final class Ration {
        private long windowStartNanos;
        private int walksInWindow;

        synchronized boolean mayWalk() {
            long now = System.nanoTime();
            if (now - windowStartNanos > 1_000_000_000L) {
                windowStartNanos = now;
                walksInWindow = 0;
            }
            return walksInWindow++ < WALKS_PER_SECOND;
        }
    }

    private static boolean isJdk(String className) {
        return className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.")
                || className.startsWith("com.sun.") || className.startsWith("dev.dprof.agent.bootstrap.");
    }

    /** The packages of the agent's own code at run time (the sink, its relocated libraries, calibration). */
    private static final String[] AGENT_PACKAGES = {
        "dev.dprof.agent.", "dev.dprof.shaded.", "dev.dprof.format.", "dev.dprof.clock.", "dev.dprof.calibrator."};

    private static boolean isAgent(String className) {
        for (String p : AGENT_PACKAGES) {
            if (className.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** The simple name of an object's class, or its binary name without the package when it has none (anonymous). */
    static String className(Object o) {
        String simple = o.getClass().getSimpleName();
        return simple.isEmpty() ? simpleName(o.getClass().getName()) : simple;
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
