package dev.dprof.testapp;

/**
 * An application's frame for the wait tests: outside the JDK and the agent, so that a wait's site
 * is found here. {@link #waitHere} runs what it is given from its own line.
 */
public final class Waiter {
    /** The line of the call in {@link #waitHere}, as the site names it. */
    public static final int LINE = 15;

    private Waiter() {
    }

    public static void waitHere(Runnable park) {
        park.run();
    }
}
