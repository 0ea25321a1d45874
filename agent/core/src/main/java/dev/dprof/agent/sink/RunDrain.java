package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.AgentThreads;
import dev.dprof.format.WeavingSummary;
import java.util.function.Supplier;

/**
 * What the agent's start needs of whatever drains the rings: the drainer thread ({@link Drainer}), or
 * the host's pump of a drainer in its own process ({@link HostPump}; docs/DESIGN.md, "The drainer in
 * its own process").
 */
public interface RunDrain {
    /** What is written just before the end record (the weaving summary); set before {@link #start}. */
    void beforeEnd(Supplier<WeavingSummary> summary);

    /** Starts draining, and the shutdown hook that ends it. */
    void start();

    /** Waits until the run's queue is open or could not be opened; returns why not, or null. */
    Exception awaitOpen() throws InterruptedException;

    /** Waits for the warm-up before {@code main}, at most {@code timeoutMs}; true if it was over in time. */
    boolean awaitWarm(long timeoutMs) throws InterruptedException;

    /**
     * Starts {@code drainer} (made by the caller, which keeps it first, so that the hook always finds
     * it) and {@code stop} as the shutdown hook that ends it; both are the agent's own before they run
     * (the threads they start, and joins of them, are never the application's).
     */
    static void start(Thread drainer, Runnable stop) {
        Thread hook = new Thread(stop, "dprof-shutdown");
        AgentThreads.own(java.util.List.of(drainer, hook));
        drainer.start();
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The drainer's daemon thread, named {@code dprof-drainer} whichever drainer it is. */
    static Thread thread(Runnable drain) {
        Thread t = new Thread(drain, "dprof-drainer");
        t.setDaemon(true);
        return t;
    }
}
