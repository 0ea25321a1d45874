package dev.dprof.calibrator.estimate;

/**
 * How well a domain's conversion is established: an explicit state, never implied (after
 * Trace Compass's synchronization quality).
 */
public enum Quality {
    /** The reference domain itself: its ticks are exact. */
    REFERENCE,
    /** Every tick gets a bound, and the zeros bound the frequency. */
    BOUNDED,
    /** Only one zero: bounds hold but the frequency is limited only by the box assumption. */
    SINGLE_ZERO,
    /** Some stretches contradict the drift assumption and get no bound; the rest are bounded. */
    PARTIAL,
    /** No stretch is consistent with the assumption: no bound at all. */
    CONTRADICTED,
    /** No zero was measured for the domain. */
    ABSENT
}
