package dev.dprof.agent.bootstrap;

/**
 * Chooses, once per JVM, what backs {@link Rings}: the native rings or {@link JavaRing}. It is a
 * class of its own because {@link Rings#NATIVE} is a {@code static final} computed when
 * {@code Rings} is initialized: the choice must be published here before anything touches
 * {@code Rings}, and a method on {@code Rings} itself would initialize it too early.
 */
public final class RingConfig {
    /** Clock mode: plain rdtsc. */
    public static final int CLOCK_RDTSC = NativeRing.CLOCK_RDTSC;
    /** Clock mode: rdtscp, storing the cpu id in every slot. */
    public static final int CLOCK_RDTSCP = NativeRing.CLOCK_RDTSCP;

    private static boolean initialized;
    private static boolean frozen;
    private static boolean nativeReady;
    private static String clockSource = "nanoTime";
    private static String message = "dprof: rings not configured; using System.nanoTime";

    private RingConfig() {
    }

    /**
     * Loads the native library if asked and configures the rings. Call once, before the first
     * probe can run; later calls return the first call's line. Never throws.
     *
     * @param useNative  try the JNI clock and rings (else System.nanoTime, e.g. by user request)
     * @param clockMode  {@link #CLOCK_RDTSC} or {@link #CLOCK_RDTSCP}
     * @param ringEvents events per thread ring, a power of two (else 4096)
     * @return one line for the agent's log: what clock the probes use, and why
     */
    public static synchronized String init(boolean useNative, int clockMode, int ringEvents) {
        if (initialized) {
            return message;
        }
        initialized = true;
        try {
            JavaRing.configure(ringEvents);
            if (frozen) {
                message = "dprof: rings were used before RingConfig.init; probes use System.nanoTime";
            } else if (!useNative) {
                message = "dprof: native clock disabled by configuration; probes use System.nanoTime";
            } else if (!NativeLibrary.load()) {
                message = NativeLibrary.message();
            } else {
                boolean rdtscp = clockMode == CLOCK_RDTSCP && NativeClock.hasRdtscp();
                NativeRing.configure(rdtscp ? CLOCK_RDTSCP : CLOCK_RDTSC, ringEvents);
                nativeReady = true;
                clockSource = rdtscp ? "rdtscp" : NativeClock.counterName();
                message = NativeLibrary.message() + "; probes use " + clockSource
                        + (clockMode == CLOCK_RDTSCP && !rdtscp ? " (rdtscp requested but not supported)" : "");
            }
        } catch (Throwable t) {
            message = "dprof: ring setup failed (" + t + "); probes use System.nanoTime";
        }
        return message;
    }

    /** The line {@link #init} returned (or a default if it was never called). */
    public static synchronized String message() {
        return message;
    }

    /** "rdtsc", "rdtscp", "cntvct_el0" or "nanoTime": the clock source to record in the run's metadata. */
    public static synchronized String clockSource() {
        return clockSource;
    }

    /** Called by {@code Rings}' static initializer: from then on the choice cannot change. */
    static synchronized boolean freezeNative() {
        frozen = true;
        if (!nativeReady) {
            clockSource = "nanoTime";
        }
        return nativeReady;
    }
}
