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
    /**
     * The data contradict the drift assumption somewhere (a stretch of zeros no curve within the
     * assumed drift fits): the assumption is false, so no tick of the domain gets a bound, and
     * reports name where it broke and what it falls back to ({@link DomainConversion#fallback()}).
     */
    CONTRADICTED,
    /** No zero was measured for the domain. */
    ABSENT
}
