package dev.dprof.agent.sink;

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
}
