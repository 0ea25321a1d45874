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
 * its class. Queues made by the agent's own code (its sink's libraries) are recognised by their
 * site and never recorded.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Runs only when a handoff object is made or first met, never per handoff.</li>
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
    private static long windowStartNanos;
    private static int walksInWindow;

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
        if (!mayWalk()) {
            return NOT_WALKED;
        }
        String[] site = new String[1];
        WALKER.forEach(f -> {
            if (site[0] == null && !isJdk(f.getClassName())) {
                site[0] = isAgent(f.getClassName()) ? "" : simpleName(f.getClassName()) + "." + f.getMethodName()
                        + ":" + f.getLineNumber();
            }
        });
        if (site[0] == null) {
            return JDK_ONLY;
        }
        return site[0].isEmpty() ? null : site[0];
    }

    /**
     * The site of a queue first met in use: its {@link #constructionSite} if it is being
     * constructed now (its constructor inserts through a method the probes watch, as
     * {@code LinkedBlockingQueue(Collection)} does), else {@link #BEFORE_AGENT}.
     */
    static String siteMetLate(Object queue) {
        if (!mayWalk()) {
            return NOT_WALKED;
        }
        Class<?> type = queue.getClass();
        boolean[] constructing = new boolean[1];
        WALKER.forEach(f -> {
            if (!constructing[0] && f.getMethodName().equals("<init>")) {
                for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                    constructing[0] |= c.getName().equals(f.getClassName());
                }
            }
        });
        if (!constructing[0]) {
            return BEFORE_AGENT;
        }
        refundWalk();
        return constructionSite();
    }

    /** Gives back the walk {@link #siteMetLate} used, so that it and the site's walk count as one. */
    private static synchronized void refundWalk() {
        if (walksInWindow > 0) {
            walksInWindow--;
        }
    }

    private static synchronized boolean mayWalk() {
        long now = System.nanoTime();
        if (now - windowStartNanos > 1_000_000_000L) {
            windowStartNanos = now;
            walksInWindow = 0;
        }
        return walksInWindow++ < WALKS_PER_SECOND;
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
